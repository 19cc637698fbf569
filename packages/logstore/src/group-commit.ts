import type { Mutex } from "./mutex";

/**
 * Group commit: appends that wrote their bytes while an fsync was running share the next one.
 * The fsync itself runs under the log mutex so no roll or delete can move the files underneath.
 */
export class GroupCommit {
  private queued: Promise<void> | null = null;

  constructor(
    private readonly mutex: Mutex,
    /** Under the mutex: fsync the active segment and publish everything written so far. */
    private readonly syncWritten: () => Promise<void>,
    private readonly durableEnd: () => number,
  ) {}

  async waitFor(endOffset: number): Promise<void> {
    while (this.durableEnd() < endOffset) {
      if (this.queued === null) {
        this.queued = this.mutex.run(async () => {
          this.queued = null;
          await this.syncWritten();
        });
      }
      await this.queued;
    }
  }
}
