/**
 * Buffers that Fetch answers are read into, reused once the answer is written. A fresh buffer per
 * large answer is external memory the loop's collector must reclaim: a tenant fetching megabytes a
 * second forced full (mark-compact) collections that paused every tenant's requests on the worker
 * (issue 27). A reused one costs nothing after its first use.
 */

/** Reads asking for less than this take a fresh buffer: small ones come from Node's own slab. */
export const POOLED_FROM_BYTES = 64 * 1024;
/** One partition's read into a pooled buffer stops here (a first batch larger still is read whole). */
export const POOLED_UP_TO_BYTES = 8 * 1024 * 1024;
/** Idle buffers kept, in bytes: beyond it a returned buffer is left to the collector. */
const DEFAULT_MAX_IDLE_BYTES = 64 * 1024 * 1024;

export class FetchBuffers {
  /** Idle buffers by size class (a power of two from POOLED_FROM_BYTES to POOLED_UP_TO_BYTES). */
  readonly #idle = new Map<number, Buffer[]>();
  readonly #maxIdleBytes: number;
  #idleBytes = 0;

  constructor(options: { maxIdleBytes?: number } = {}) {
    this.#maxIdleBytes = options.maxIdleBytes ?? DEFAULT_MAX_IDLE_BYTES;
  }

  /** A buffer of at least `bytes` (at most POOLED_UP_TO_BYTES), the caller's until it gives it back. */
  take(bytes: number): Buffer {
    const size = sizeClass(bytes);
    const reused = this.#idle.get(size)?.pop();
    if (reused) {
      this.#idleBytes -= size;
      return reused;
    }
    return Buffer.allocUnsafeSlow(size);
  }

  /** Gives back a buffer from `take` that nothing reads any more (its answer is written). */
  giveBack(buffer: Buffer): void {
    if (this.#idleBytes + buffer.length > this.#maxIdleBytes) return;
    const list = this.#idle.get(buffer.length) ?? [];
    list.push(buffer);
    this.#idle.set(buffer.length, list);
    this.#idleBytes += buffer.length;
  }

  /** Bytes held idle (tests). */
  get idleBytes(): number {
    return this.#idleBytes;
  }
}

function sizeClass(bytes: number): number {
  let size = POOLED_FROM_BYTES;
  while (size < Math.min(bytes, POOLED_UP_TO_BYTES)) size *= 2;
  return size;
}
