/**
 * At most one log line per key (a refusal reason, a quota) per `intervalMs`, each telling how many
 * it stands for: a flood of refusals or throttles does not become a flood of log lines.
 */
export class LogSampler<K> {
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #last = new Map<K, { at: number; suppressed: number }>();

  constructor(intervalMs: number, now: () => number) {
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  /** Null when this event is only counted; else log it, with how many were not logged since the last line. */
  take(key: K): number | null {
    const now = this.#now();
    const last = this.#last.get(key);
    if (last && now - last.at < this.#intervalMs) {
      last.suppressed++;
      return null;
    }
    this.#last.set(key, { at: now, suppressed: 0 });
    return last?.suppressed ?? 0;
  }
}
