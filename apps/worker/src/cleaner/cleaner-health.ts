/** Why a partition is not being cleaned right now, as the console and the metrics show it. */
export interface UncleanableState {
  error: string;
  failures: number;
  /** When the next automatic attempt may run; null once held. */
  retryAtMs: number | null;
  /** Failed too often: no more automatic attempts until its config changes or a pass is requested. */
  held: boolean;
  sinceMs: number;
}

interface Entry extends UncleanableState {
  configVersion: number;
}

export const CLEANER_MAX_ATTEMPTS = 4;
export const CLEANER_BACKOFF_BASE_MS = 5_000;

/**
 * Failure isolation for the cleaner: a pass that throws marks only its own partition uncleanable,
 * retried with exponential backoff a few times, then held. A config change (new configVersion) or an
 * explicit request clears it; other partitions are never affected.
 */
export class CleanerHealthBook {
  readonly #entries = new Map<string, Entry>();
  readonly #maxAttempts: number;
  readonly #backoffBaseMs: number;

  constructor(maxAttempts = CLEANER_MAX_ATTEMPTS, backoffBaseMs = CLEANER_BACKOFF_BASE_MS) {
    this.#maxAttempts = maxAttempts;
    this.#backoffBaseMs = backoffBaseMs;
  }

  /** Whether an automatic pass may run now; a changed config forgives past failures. */
  mayRun(partitionId: string, configVersion: number, nowMs: number): boolean {
    const entry = this.#entries.get(partitionId);
    if (!entry) return true;
    if (entry.configVersion !== configVersion) {
      this.#entries.delete(partitionId);
      return true;
    }
    return !entry.held && entry.retryAtMs !== null && nowMs >= entry.retryAtMs;
  }

  recordFailure(partitionId: string, configVersion: number, error: string, nowMs: number): UncleanableState {
    const previous = this.#entries.get(partitionId);
    const failures = previous && previous.configVersion === configVersion ? previous.failures + 1 : 1;
    const held = failures >= this.#maxAttempts;
    const entry: Entry = {
      error,
      failures,
      held,
      retryAtMs: held ? null : nowMs + this.#backoffBaseMs * 2 ** (failures - 1),
      sinceMs: previous?.sinceMs ?? nowMs,
      configVersion,
    };
    this.#entries.set(partitionId, entry);
    return stateOf(entry);
  }

  recordSuccess(partitionId: string): void {
    this.#entries.delete(partitionId);
  }

  /** A person asked for a pass (console/API): forget the failures so it runs, and again later. */
  forgive(partitionId: string): void {
    this.#entries.delete(partitionId);
  }

  forget(partitionId: string): void {
    this.#entries.delete(partitionId);
  }

  state(partitionId: string): UncleanableState | null {
    const entry = this.#entries.get(partitionId);
    return entry ? stateOf(entry) : null;
  }

  uncleanable(): Map<string, UncleanableState> {
    return new Map([...this.#entries].map(([id, entry]) => [id, stateOf(entry)]));
  }
}

function stateOf({ configVersion: _, ...state }: Entry): UncleanableState {
  return state;
}
