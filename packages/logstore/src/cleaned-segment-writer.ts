import fs from "node:fs";
import path from "node:path";
import { reachFaultPoint } from "./cleaner-fault-points";
import { invariant } from "./invariant";
import { Segment, type SegmentLimits } from "./segment";
import { CLEANED_SUFFIX, SWAP_SUFFIX, segmentStem, swapRangeFileName } from "./segment-swap";

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
  private rangeEnd = -1;

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
    const segment = this.segment;
    invariant(segment !== null, "a cleaned segment is started before bytes are flushed to it");
    segment.append(this.buf.subarray(0, this.length));
    this.bytesWritten += this.length;
    this.length = 0;
    invariant(segment.sizeBytes === this.bytesWritten, "a cleaned segment holds every byte flushed to it");
    reachFaultPoint("cleaned-data-written");
  }

  /**
   * Flushes, seals (final time-index entry) and fsyncs the log. The indexes are not fsynced: the
   * loader rebuilds any index that does not match its log, so only the log must be durable.
   */
  async finish(): Promise<Segment> {
    this.flush();
    const segment = this.segment!;
    segment.seal();
    await segment.flushLog();
    return segment;
  }

  /**
   * Records the range the group replaces as an empty marker file named after its end (see
   * segment-swap); it becomes durable with the promotion's directory fsync.
   */
  recordRange(oldNextOffset: number): void {
    this.rangeEnd = oldNextOffset;
    fs.writeFileSync(this.rangePath(CLEANED_SUFFIX), "");
  }

  private rangePath(suffix: string): string {
    return path.join(this.dir, swapRangeFileName(this.baseOffset, this.rangeEnd, suffix));
  }

  /** Commit point of the group: every `.cleaned` file becomes `.swap` (see segment-swap). */
  promote(): void {
    fs.renameSync(this.rangePath(CLEANED_SUFFIX), this.rangePath(SWAP_SUFFIX));
    this.segment!.renameTo(SWAP_SUFFIX);
  }

  /** Gives the segment its live names (the `.log` first), then drops the range marker. */
  install(): Segment {
    const segment = this.segment!;
    segment.renameTo("");
    fs.rmSync(this.rangePath(SWAP_SUFFIX), { force: true });
    return segment;
  }

  /** Abandons the group: closes and removes every temporary file. */
  discard(): void {
    const segment = this.segment;
    this.segment = null;
    if (segment === null) return;
    segment.close();
    const files = ["log", "index", "timeindex"].map((kind) => `${segmentStem(this.baseOffset)}.${kind}`);
    if (this.rangeEnd >= 0) files.push(swapRangeFileName(this.baseOffset, this.rangeEnd, ""));
    for (const file of files) {
      for (const suffix of [CLEANED_SUFFIX, SWAP_SUFFIX])
        fs.rmSync(path.join(this.dir, file + suffix), { force: true });
    }
  }
}
