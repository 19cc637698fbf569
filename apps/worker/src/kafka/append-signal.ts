/**
 * Wakes Fetch long polls when a partition they wait on is appended to, whichever path appended
 * (Kafka Produce or the data plane's REST produce).
 */
export class AppendSignal {
  readonly #waiters = new Map<string, Set<() => void>>();

  notify(partitionId: string): void {
    const waiting = this.#waiters.get(partitionId);
    if (!waiting) return;
    this.#waiters.delete(partitionId);
    for (const wake of waiting) wake();
  }

  /** Resolves at the first append to any of `partitionIds`, or after `timeoutMs`, or on `abort`. */
  wait(partitionIds: readonly string[], timeoutMs: number, abort?: AbortSignal): Promise<void> {
    if (partitionIds.length === 0 || timeoutMs <= 0 || abort?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        abort?.removeEventListener("abort", done);
        for (const id of partitionIds) this.#waiters.get(id)?.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      abort?.addEventListener("abort", done, { once: true });
      for (const id of partitionIds) {
        const set = this.#waiters.get(id) ?? new Set();
        this.#waiters.set(id, set);
        set.add(done);
      }
    });
  }
}
