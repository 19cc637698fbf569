import fs from "node:fs";
import path from "node:path";
import { Segment, type SegmentLimits } from "./segment";
import { CLEANED_SUFFIX, SWAP_SUFFIX, segmentStem, writeSwapRange } from "./segment-swap";

// The output side of one cleaner group: a `.cleaned` segment fed whole batches through a reusable
// buffer, so the segment (and its indexes) see large appends rather than one write per batch.

/** Appends go to the segment once this many bytes are buffered. */
const FLUSH_BYTES = 1 << 20;

export class CleanedSegmentWriter {
  buf: Buffer;
  /** Bytes buffered in `buf`, not yet handed to the segment. */
  length = 0;
  bytesWritten = 0;
  private segment: Segment | null = null;

  constructor(
    private readonly dir: string,
    readonly baseOffset: number,
    private readonly limits: SegmentLimits,
    private readonly nowMs: number,
  ) {
    this.buf = Buffer.allocUnsafe(FLUSH_BYTES * 2);
  }

  /** The segment being written (after `start`). */
  segmentRef(): Segment {
    return this.segment!;
  }

  /** True while no byte has been written or buffered. */
  get isEmpty(): boolean {
    return this.bytesWritten + this.length === 0;
  }

  get started(): boolean {
    return this.segment !== null;
  }

  /** Creates the `.cleaned` files, replacing whatever an earlier attempt left at this base. */
  start(): void {
    this.segment = Segment.create(this.dir, this.baseOffset, this.limits, this.nowMs, CLEANED_SUFFIX);
  }

  /** Makes room for `bytes` more at `buf[length]`, flushing or growing the buffer. */
  reserve(bytes: number): void {
    if (this.length + bytes <= this.buf.length) return;
    this.flush();
    if (bytes > this.buf.length) this.buf = Buffer.allocUnsafe(bytes);
  }

  /** Accepts `bytes` just written at `buf[length]`. */
  commit(bytes: number): void {
    this.length += bytes;
    if (this.length >= FLUSH_BYTES) this.flush();
  }

  flush(): void {
    if (this.length === 0) return;
    this.segment!.append(this.buf.subarray(0, this.length));
    this.bytesWritten += this.length;
    this.length = 0;
  }

  /** Flushes, seals (final time-index entry) and fsyncs the three files; returns the segment. */
  async finish(): Promise<Segment> {
    this.flush();
    const segment = this.segment!;
    segment.seal();
    await segment.flushAll();
    return segment;
  }

  /** Records the replaced range beside the `.cleaned` files (see segment-swap). */
  async recordRange(oldBaseOffsets: readonly number[], oldNextOffset: number): Promise<void> {
    await writeSwapRange(this.dir, { baseOffset: this.baseOffset, oldBaseOffsets, oldNextOffset });
  }

  /** Commit point of the group: every `.cleaned` file becomes `.swap` (see segment-swap). */
  promote(): void {
    const stem = segmentStem(this.baseOffset);
    fs.renameSync(
      path.join(this.dir, `${stem}.swaprange${CLEANED_SUFFIX}`),
      path.join(this.dir, `${stem}.swaprange${SWAP_SUFFIX}`),
    );
    this.segment!.renameTo(SWAP_SUFFIX);
  }

  /** Gives the segment its live names and drops the range record. */
  install(): Segment {
    const segment = this.segment!;
    segment.renameTo("");
    fs.rmSync(path.join(this.dir, `${segmentStem(this.baseOffset)}.swaprange${SWAP_SUFFIX}`), {
      force: true,
    });
    return segment;
  }

  /** Abandons the group: closes and removes every temporary file. */
  discard(): void {
    const segment = this.segment;
    this.segment = null;
    if (segment === null) return;
    segment.close();
    for (const kind of ["log", "index", "timeindex", "swaprange"]) {
      for (const suffix of [CLEANED_SUFFIX, SWAP_SUFFIX]) {
        fs.rmSync(path.join(this.dir, `${segmentStem(this.baseOffset)}.${kind}${suffix}`), { force: true });
      }
    }
  }
}
