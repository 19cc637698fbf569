import { KafkaProtocolError } from "./errors";

/** Before SASL completes a client has no business sending large frames (Kafka's `sasl.server.max.receive.size` is 512 KiB). */
export const PRE_AUTH_MAX_FRAME_BYTES = 64 * 1024;
/** After authentication: Kafka's `socket.request.max.bytes` is 100 MiB. */
export const MAX_FRAME_BYTES = 100 * 1024 * 1024;

const SIZE_PREFIX_BYTES = 4;

/**
 * Splits a TCP byte stream into frames (int32 size + payload). A size above the cap is rejected
 * as soon as its 4 bytes arrive, before any payload is buffered; a frame held in one chunk is
 * returned as a view of it, so record sets are not copied. After it throws, the stream is out of
 * step: close the connection.
 */
export class FrameReader {
  /** Raise after authentication; applies to the next size prefix read. */
  maxFrameBytes: number;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private pendingSize = -1;

  constructor(options: { maxFrameBytes?: number } = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? PRE_AUTH_MAX_FRAME_BYTES;
  }

  /** Bytes received but not yet returned as frames. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /**
   * Bytes still to arrive before `next()` has a frame to return (0 when one is complete). A reader
   * that must stop reading while requests wait stops only when this is 0: a frame still arriving is
   * never held back, whatever its size up to the cap.
   */
  get missingBytes(): number {
    if (this.pendingSize >= 0) return Math.max(0, this.pendingSize - this.buffered);
    if (this.buffered < SIZE_PREFIX_BYTES) return SIZE_PREFIX_BYTES - this.buffered;
    return Math.max(0, SIZE_PREFIX_BYTES + this.peekSize() - this.buffered);
  }

  /** The next complete frame's payload (without the size prefix), or undefined if none is complete. */
  next(): Buffer | undefined {
    if (this.pendingSize < 0) {
      if (this.buffered < SIZE_PREFIX_BYTES) return undefined;
      this.pendingSize = this.readSize();
    }
    if (this.buffered < this.pendingSize) return undefined;
    const frame = this.take(this.pendingSize);
    this.pendingSize = -1;
    return frame;
  }

  private readSize(): number {
    const size = this.take(SIZE_PREFIX_BYTES).readInt32BE(0);
    if (size < 0) throw new KafkaProtocolError("INVALID_LENGTH", `frame size ${size}`);
    if (size > this.maxFrameBytes) {
      throw new KafkaProtocolError("FRAME_TOO_LARGE", `frame of ${size} bytes exceeds ${this.maxFrameBytes}`);
    }
    return size;
  }

  /** The size prefix at the front, not consumed (the caller checked 4 bytes are buffered). */
  private peekSize(): number {
    const first = this.chunks[0] as Buffer;
    if (first.length >= SIZE_PREFIX_BYTES) return first.readInt32BE(0);
    const prefix = Buffer.concat(this.chunks, SIZE_PREFIX_BYTES);
    return prefix.readInt32BE(0);
  }

  /** Removes `n` buffered bytes (n <= buffered): a view when one chunk holds them, else one copy. */
  private take(n: number): Buffer {
    const first = this.chunks[0];
    if (first && first.length >= n) {
      this.consumeFrom(first, n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.chunks[0] as Buffer;
      const used = Math.min(chunk.length, n - filled);
      chunk.copy(out, filled, 0, used);
      filled += used;
      this.consumeFrom(chunk, used);
    }
    return out;
  }

  private consumeFrom(chunk: Buffer, used: number): void {
    this.buffered -= used;
    if (used === chunk.length) this.chunks.shift();
    else this.chunks[0] = chunk.subarray(used);
  }
}
