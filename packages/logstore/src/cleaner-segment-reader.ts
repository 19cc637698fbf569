import fs from "node:fs";
import { promisify } from "node:util";
import { BATCH_HEADER_BYTES, batchCrcMatches, batchField, batchHeaderDefect } from "@lastword/record-batch";
import { CorruptSegmentError } from "./errors";
import type { Segment } from "./segment";

// Sequential reader of a segment's batches for the cleaner. It owns its file descriptor (opened
// while the segment is live), so a segment retired mid-pass stays readable until the swap notices;
// it reuses two buffers instead of allocating per window; and it reads the next chunk on libuv's
// thread pool while the caller filters the current one, so reading overlaps the CPU work.

const read = promisify(fs.read);
const CHUNK_BYTES = 1 << 20;

/** Whole batches at `buf[start, end)`; valid until the next `nextChunk()`. */
export interface BatchChunk {
  buf: Buffer;
  start: number;
  end: number;
  /** File position of `buf[start]`. */
  position: number;
}

export class CleanerSegmentReader {
  private buffers: [Buffer, Buffer];
  private current = 0;
  private fd: number;
  private readonly limit: number;
  private position: number;
  private pending: Promise<number> | null = null;
  private pendingAt = 0;
  private readonly chunk: BatchChunk = { buf: Buffer.alloc(0), start: 0, end: 0, position: 0 };

  /** Reads `segment`'s batches from byte `from` up to `end` (default: the valid end of the log). */
  constructor(
    private readonly segment: Segment,
    from: number,
    end: number | undefined,
    private readonly verifyCrc: boolean,
  ) {
    if (segment.corruption !== null) this.fail(segment.corruption.position, segment.corruption.reason);
    this.limit = Math.min(end ?? segment.sizeBytes, segment.sizeBytes);
    this.position = from;
    // Small segments get small buffers; a batch larger than a chunk grows them when met.
    const size = Math.max(Math.min(CHUNK_BYTES, this.limit - from), BATCH_HEADER_BYTES);
    this.buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
    this.fd = fs.openSync(segment.filePath("log"), "r");
  }

  private fail(position: number, reason: string): never {
    throw new CorruptSegmentError(this.segment.baseOffset, position, reason);
  }

  /** The next run of whole batches, or null at the end (the reader is then closed). */
  async nextChunk(): Promise<BatchChunk | null> {
    if (this.position >= this.limit) {
      this.close();
      return null;
    }
    const length = await this.take(this.buffers[this.current]!);
    // May swap in larger buffers when one batch does not fit a chunk.
    const wholeEnd = this.wholeBatchesEnd(this.buffers[this.current]!, length);
    this.chunk.buf = this.buffers[this.current]!;
    this.chunk.start = 0;
    this.chunk.end = wholeEnd;
    this.chunk.position = this.position;
    this.position += wholeEnd;
    this.current = 1 - this.current;
    this.prefetch();
    return this.chunk;
  }

  /** Bytes at `this.position` in `buf`: the prefetched read if it was aimed there, else a fresh one. */
  private async take(buf: Buffer): Promise<number> {
    const wanted = Math.min(buf.length, this.limit - this.position);
    if (this.pending !== null && this.pendingAt === this.position) {
      const n = await this.pending;
      this.pending = null;
      if (n === wanted) return n;
    }
    await this.pending;
    this.pending = null;
    return this.readFully(buf, wanted);
  }

  private async readFully(buf: Buffer, wanted: number): Promise<number> {
    let got = 0;
    while (got < wanted) {
      const { bytesRead } = await read(this.fd, buf, got, wanted - got, this.position + got);
      if (bytesRead === 0) this.fail(this.position + got, "log file shorter than its recorded size");
      got += bytesRead;
    }
    return got;
  }

  private prefetch(): void {
    if (this.position >= this.limit) return;
    const buf = this.buffers[this.current]!;
    const wanted = Math.min(buf.length, this.limit - this.position);
    this.pendingAt = this.position;
    this.pending = read(this.fd, buf, 0, wanted, this.position).then((r) => r.bytesRead);
  }

  /** End of the last whole batch in `buf[0, length)`, checking each; grows the buffers for a huge batch. */
  private wholeBatchesEnd(buf: Buffer, length: number): number {
    let at = 0;
    while (length - at >= BATCH_HEADER_BYTES) {
      const defect = batchHeaderDefect(buf, at);
      if (defect !== null) this.fail(this.position + at, defect);
      const size = batchField.sizeBytes(buf, at);
      if (at + size > length) break;
      if (this.verifyCrc && !batchCrcMatches(buf, at, size))
        this.fail(this.position + at, "CRC-32C mismatch");
      at += size;
    }
    if (at > 0) return at;
    if (length < BATCH_HEADER_BYTES) this.fail(this.position, "truncated batch header");
    const size = batchField.sizeBytes(buf, 0);
    if (this.position + size > this.limit)
      this.fail(this.position, `batch of ${size} bytes runs past the end`);
    this.buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
    this.pendingAt = -1; // no prefetch is in flight here, but never trust one aimed at an old buffer
    const grown = this.buffers[this.current]!;
    buf.copy(grown, 0, 0, length);
    fs.readSync(this.fd, grown, length, size - length, this.position + length);
    if (this.verifyCrc && !batchCrcMatches(grown, 0, size)) this.fail(this.position, "CRC-32C mismatch");
    return size;
  }

  close(): void {
    if (this.fd < 0) return;
    const fd = this.fd;
    this.fd = -1;
    // A read still in flight must finish before its descriptor can be closed.
    const pending = this.pending ?? Promise.resolve(0);
    this.pending = null;
    void pending.catch(() => 0).then(() => fs.closeSync(fd));
  }
}
