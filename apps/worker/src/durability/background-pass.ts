import type { Logger } from "../logger";

/**
 * At most one pass of a background job (an orphan sweep, a round of superseded deletions) at a
 * time. Its callers are timers and the ownership loop, which must not wait on it nor fail with it:
 * a failed pass is logged as `failure` and left for the next turn to retry, and `settled()` lets a
 * shutdown wait for the pass still running so nothing deletes behind it.
 */
export class BackgroundPass {
  readonly #pass: () => Promise<unknown>;
  readonly #logger: Logger;
  readonly #failure: string;
  #running: Promise<void> | null = null;

  constructor(pass: () => Promise<unknown>, logger: Logger, failure: string) {
    this.#pass = pass;
    this.#logger = logger;
    this.#failure = failure;
  }

  get running(): boolean {
    return this.#running !== null;
  }

  /** Starts a pass unless one is running; answers whether it started one. */
  start(): boolean {
    if (this.#running) return false;
    this.#running = this.#pass()
      .then(
        () => undefined,
        (error: unknown) => this.#logger.warn({ err: error }, this.#failure),
      )
      .finally(() => {
        this.#running = null;
      });
    return true;
  }

  /** Resolves once no pass is running (at once when none is). */
  async settled(): Promise<void> {
    await this.#running;
  }
}
