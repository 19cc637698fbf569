/**
 * FIFO async mutex: one log's appends, rolls, retention and cleaner swaps run one at a time.
 * Reads do not take it; they run synchronously against the in-memory segment list.
 */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  private holders = 0;

  get isLocked(): boolean {
    return this.holders > 0;
  }

  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(async () => {
      this.holders++;
      try {
        return await task();
      } finally {
        this.holders--;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }
}
