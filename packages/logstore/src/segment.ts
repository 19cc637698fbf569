import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import {
  BATCH_HEADER_BYTES,
  batchCrcMatches,
  batchField,
  batchHeaderDefect,
  countTombstones,
} from "@lastword/record-batch";
import { invariant } from "./invariant";
import { OffsetIndex } from "./offset-index";
import { type RemoteSegmentEntry, SEGMENT_FIELD_OF_ENTRY } from "./remote-segments";
import { TimeIndex } from "./time-index";

const fdatasync = promisify(fs.fdatasync);

/** Kafka's default `index.interval.bytes`: one offset-index entry per this many log bytes. */
export const INDEX_INTERVAL_BYTES = 4096;
/** Read window when only headers are needed (open-time scans of trusted segments). */
const HEADER_SCAN_WINDOW_BYTES = 16 * 1024;
const SEGMENT_FILE = /^(\d{20})\.(log|index|timeindex)$/;
const entryFields = Object.entries(SEGMENT_FIELD_OF_ENTRY) as [
  keyof typeof SEGMENT_FIELD_OF_ENTRY,
  (typeof SEGMENT_FIELD_OF_ENTRY)[keyof typeof SEGMENT_FIELD_OF_ENTRY],
][];

export type SegmentFileKind = "log" | "index" | "timeindex";

export function segmentFileName(baseOffset: number, kind: SegmentFileKind, suffix = ""): string {
  return `${String(baseOffset).padStart(20, "0")}.${kind}${suffix}`;
}

/** Base offset and kind of a live segment file; null for anything else (incl. .cleaned/.swap/.deleted). */
export function parseSegmentFileName(name: string): { baseOffset: number; kind: SegmentFileKind } | null {
  const match = SEGMENT_FILE.exec(name);
  if (!match) return null;
  return { baseOffset: Number(match[1]), kind: match[2] as SegmentFileKind };
}

export interface SegmentLimits {
  /** `segment.index.bytes` / 8 and / 12: a full index forces a roll. */
  offsetIndexMaxEntries: number;
  timeIndexMaxEntries: number;
}

export function segmentLimits(segmentIndexBytes: number): SegmentLimits {
  return {
    offsetIndexMaxEntries: Math.floor(segmentIndexBytes / 8),
    timeIndexMaxEntries: Math.floor(segmentIndexBytes / 12),
  };
}

function writeFully(fd: number, bytes: Buffer, position: number): void {
  let written = 0;
  while (written < bytes.length) {
    written += fs.writeSync(fd, bytes, written, bytes.length - written, position + written);
  }
}

/**
 * Walks whole batches of a segment file from a byte position. After `next()` returns true,
 * `buf[bufPos …]` holds the batch (only its 61 header bytes in headers-only mode). Readers that
 * decide from the header whether they want a batch call `nextHeader()` then `body()`, so a batch
 * they stop before is never read. Each refill allocates a fresh buffer, so views handed out stay
 * valid. On bad bytes the call returns false and `defect` says why; `position` is then where the
 * bad bytes start.
 */
export class BatchCursor {
  buf: Buffer = Buffer.alloc(0);
  bufPos = 0;
  position: number;
  size = 0;
  defect: string | null = null;
  /** How much `body()` reads at once; readers shrink it to their remaining byte budget. */
  readAheadBytes: number;
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;
  private windowEnd = 0;
  private readonly header = Buffer.allocUnsafe(BATCH_HEADER_BYTES);

  constructor(
    private readonly fd: number,
    start: number,
    private readonly end: number,
    private readonly mode: {
      verifyCrc: boolean;
      headersOnly: boolean;
      windowBytes: number;
      /** Bytes below `crcVerifiedEnd` were checked before (or written by us) and skip the CRC. */
      trust?: { crcVerifiedEnd: number };
    },
  ) {
    this.position = start;
    this.readAheadBytes = mode.windowBytes;
  }

  /** The next whole batch (its header only in headers-only mode). */
  next(): boolean {
    return this.nextHeader() && (this.mode.headersOnly || this.body());
  }

  /** Moves to the next batch and validates its header; its body is not read yet. */
  nextHeader(): boolean {
    const at = this.position + this.size;
    this.position = at;
    this.size = 0;
    if (at >= this.end) return false;
    if (this.end - at < BATCH_HEADER_BYTES) return this.fail("truncated batch header");
    if (at + BATCH_HEADER_BYTES <= this.windowEnd && at >= this.windowStart) {
      this.buf = this.window;
      this.bufPos = at - this.windowStart;
    } else if (this.mode.headersOnly) {
      this.fill(at, this.mode.windowBytes);
    } else {
      readFully(this.fd, this.header, at);
      this.buf = this.header;
      this.bufPos = 0;
    }
    const size = batchField.sizeBytes(this.buf, this.bufPos);
    const headerDefect = batchHeaderDefect(this.buf, this.bufPos);
    if (headerDefect) return this.fail(headerDefect);
    if (at + size > this.end) return this.fail(`batch of ${size} bytes runs past the end of the data`);
    this.size = size;
    return true;
  }

  /** Loads the current batch's bytes (reading ahead `windowBytes`) and checks its CRC. */
  body(): boolean {
    const at = this.position;
    if (at < this.windowStart || at + this.size > this.windowEnd)
      this.fill(at, Math.max(this.readAheadBytes, this.size));
    this.buf = this.window;
    this.bufPos = at - this.windowStart;
    if (!this.checkCrc(at, this.size)) {
      this.size = 0;
      return this.fail("CRC-32C mismatch");
    }
    return true;
  }

  /** CRC-checks a batch unless it lies in bytes already verified (or written) by this process. */
  private checkCrc(at: number, size: number): boolean {
    const trust = this.mode.trust;
    if (trust && at + size <= trust.crcVerifiedEnd) return true;
    if (!this.mode.verifyCrc) return true;
    if (!batchCrcMatches(this.buf, this.bufPos, size)) return false;
    if (trust && trust.crcVerifiedEnd === at) trust.crcVerifiedEnd = at + size;
    return true;
  }

  /** The current batch's bytes (after `next()` or `body()` in full mode). */
  bytes(): Buffer {
    return this.buf.subarray(this.bufPos, this.bufPos + this.size);
  }

  private fail(reason: string): boolean {
    this.defect = reason;
    return false;
  }

  private fill(at: number, wanted: number): void {
    const length = Math.min(wanted, this.end - at);
    const window = Buffer.allocUnsafe(length);
    const read = readFully(this.fd, window, at);
    this.window = window;
    this.windowStart = at;
    this.windowEnd = at + read;
    this.buf = window;
    this.bufPos = 0;
  }
}

function readFully(fd: number, target: Buffer, position: number, length = target.length): number {
  let read = 0;
  while (read < length) {
    const n = fs.readSync(fd, target, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read;
}

export interface SegmentLoadResult {
  segment: Segment;
  /** Bytes cut from a torn or garbage tail (active segment only). */
  truncatedBytes: number;
}

/**
 * One segment: a `.log` of RecordBatch v2 batches plus its `.index` and `.timeindex`. Tracks what
 * retention, roll and the cleaner read (offsets, size, record count, timestamps). File names carry
 * an optional suffix (`.cleaned`, `.swap`) while the cleaner builds a replacement.
 */
export class Segment {
  nextOffset: number;
  sizeBytes = 0;
  recordCount = 0;
  /** Records with a key and a null value; -1 until known (a load that walked headers only). */
  tombstoneCount = 0;
  /** Max timestamp of the first batch (Kafka's rolling timestamp); -1 while empty. */
  firstBatchTimestamp = -1;
  maxTimestamp = -1;
  offsetOfMaxTimestamp = -1;
  /** Set by the log when the segment becomes active: per-segment share of `segment.jitter.ms`. */
  rollJitterMs = 0;
  /**
   * Bytes below this were CRC-checked (at recovery or by an earlier read) or written by this
   * process, so reads skip their CRC, as Kafka's broker never re-checks on fetch.
   */
  crcVerifiedEnd = 0;
  /** Where bytes that are not a valid batch start in a closed segment; reads stop there. */
  corruption: { position: number; reason: string } | null = null;
  /** Set by reads: every batch before `position` holds offsets ≤ `afterOffset` (see scanStart). */
  readHint: { afterOffset: number; position: number } | null = null;
  /**
   * Set while the segment's bytes live only in a remote tier (evicted from the local disk): what
   * the tier needs to fetch them back, opaque to the log. Its files are gone and its descriptors
   * closed; only the bookkeeping above is kept (remote-segments.ts).
   */
  remote: { ref: string; largestTimestampMs: number } | null = null;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  private bytesSinceLastIndexEntry = 0;
  private persistedIndexEntries = 0;
  private persistedTimeEntries = 0;
  private logFd: number;
  private indexFd: number;
  private timeIndexFd: number;

  private constructor(
    readonly dir: string,
    readonly baseOffset: number,
    private suffix: string,
    limits: SegmentLimits,
    readonly createdMs: number,
    openFiles = true,
  ) {
    this.nextOffset = baseOffset;
    this.offsetIndex = new OffsetIndex(baseOffset, openFiles ? limits.offsetIndexMaxEntries : 0);
    this.timeIndex = new TimeIndex(baseOffset, openFiles ? limits.timeIndexMaxEntries : 0);
    if (!openFiles) {
      this.logFd = this.indexFd = this.timeIndexFd = -1;
      return;
    }
    // Read-write without O_APPEND: positional writes must land where they are aimed.
    const flags = fs.constants.O_RDWR | fs.constants.O_CREAT;
    this.logFd = fs.openSync(this.filePath("log"), flags);
    this.indexFd = fs.openSync(this.filePath("index"), flags);
    this.timeIndexFd = fs.openSync(this.filePath("timeindex"), flags);
  }

  /**
   * A closed segment whose bytes are in a remote tier only: its bookkeeping, no files. Reads
   * must fetch it back first (`PartitionLog` does); its file descriptors are invalid.
   */
  static remote(dir: string, entry: RemoteSegmentEntry, limits: SegmentLimits): Segment {
    const segment = new Segment(dir, entry.baseOffset, "", limits, entry.largestTimestampMs, false);
    for (const [field, own] of entryFields) segment[own] = entry[field];
    segment.crcVerifiedEnd = entry.sizeBytes;
    segment.remote = { ref: entry.ref, largestTimestampMs: entry.largestTimestampMs };
    return segment;
  }

  /** The bookkeeping of this (closed, local) segment as a remote entry naming `ref`. */
  remoteEntry(ref: string, largestTimestampMs: number): RemoteSegmentEntry {
    const entry = { baseOffset: this.baseOffset, largestTimestampMs, ref } as RemoteSegmentEntry;
    for (const [field, own] of entryFields) entry[field] = this[own];
    return entry;
  }

  /** Creates empty files (replacing any at that name) for a new segment. */
  static create(dir: string, baseOffset: number, limits: SegmentLimits, nowMs: number, suffix = ""): Segment {
    for (const kind of ["log", "index", "timeindex"] as const) {
      fs.writeFileSync(path.join(dir, segmentFileName(baseOffset, kind, suffix)), "");
    }
    return new Segment(dir, baseOffset, suffix, limits, nowMs);
  }

  /**
   * Opens an existing segment: scans its batches (with CRC checks when `verifyCrc`), rebuilds its
   * indexes from what it finds and rewrites index files that differ. A bad tail is truncated when
   * `truncateTail` (the active segment); otherwise it is recorded as `corruption`.
   */
  static load(
    dir: string,
    baseOffset: number,
    limits: SegmentLimits,
    options: { nowMs: number; verifyCrc: boolean; truncateTail: boolean; sealed: boolean; suffix?: string },
  ): SegmentLoadResult {
    const segment = new Segment(dir, baseOffset, options.suffix ?? "", limits, options.nowMs);
    const fileSize = fs.fstatSync(segment.logFd).size;
    const cursor = new BatchCursor(segment.logFd, 0, fileSize, {
      verifyCrc: options.verifyCrc,
      headersOnly: !options.verifyCrc,
      windowBytes: options.verifyCrc ? 1 << 20 : HEADER_SCAN_WINDOW_BYTES,
    });
    while (cursor.next()) {
      const batchBase = batchField.baseOffset(cursor.buf, cursor.bufPos);
      if (batchBase < segment.nextOffset) {
        cursor.defect = `batch base offset ${batchBase} is below the expected ${segment.nextOffset}`;
        break;
      }
      segment.track(cursor.buf, cursor.bufPos, cursor.position, cursor.size);
      if (options.verifyCrc) segment.tombstoneCount += countTombstones(cursor.buf, cursor.bufPos);
      segment.sizeBytes = cursor.position + cursor.size;
    }
    // Headers alone say nothing of values: the loader takes the count from its checkpoint or a scan.
    if (!options.verifyCrc) segment.tombstoneCount = -1;
    let truncatedBytes = 0;
    if (cursor.defect !== null || segment.sizeBytes < fileSize) {
      if (options.truncateTail) {
        truncatedBytes = fileSize - segment.sizeBytes;
        fs.ftruncateSync(segment.logFd, segment.sizeBytes);
        fs.fdatasyncSync(segment.logFd);
      } else {
        segment.corruption = { position: segment.sizeBytes, reason: cursor.defect ?? "trailing bytes" };
        segment.sizeBytes = fileSize;
      }
    }
    if (options.sealed)
      segment.timeIndex.maybeAppend(segment.maxTimestamp, segment.offsetOfMaxTimestamp, true);
    segment.rewriteIndexFilesIfStale();
    return { segment, truncatedBytes };
  }

  get lastOffset(): number {
    return this.nextOffset - 1;
  }

  get isEmpty(): boolean {
    return this.sizeBytes === 0;
  }

  get isIndexFull(): boolean {
    return this.offsetIndex.isFull || this.timeIndex.isFull;
  }

  filePath(kind: SegmentFileKind): string {
    return path.join(this.dir, segmentFileName(this.baseOffset, kind, this.suffix));
  }

  /**
   * Appends one or more whole batches this process built or CRC-checked (they count as verified).
   * `tombstones` is their tombstone count when the caller knows it; otherwise they are walked.
   */
  append(batches: Buffer, tombstones?: number): void {
    const start = this.sizeBytes;
    const nextBefore = this.nextOffset;
    invariant(this.logFd !== -1, () => `append to segment ${this.baseOffset}, whose files are closed`);
    invariant(
      batches.length >= BATCH_HEADER_BYTES && batchField.baseOffset(batches, 0) >= nextBefore,
      () => `append to segment ${this.baseOffset} of a batch below its next offset ${nextBefore}`,
    );
    writeFully(this.logFd, batches, start);
    let at = 0;
    let counted = 0;
    while (at < batches.length) {
      const size = batchField.sizeBytes(batches, at);
      this.track(batches, at, start + at, size);
      if (tombstones === undefined) counted += countTombstones(batches, at);
      at += size;
    }
    invariant(
      at === batches.length && this.nextOffset > nextBefore,
      () => `segment ${this.baseOffset}: appended bytes are not whole batches (${at} of ${batches.length})`,
    );
    this.tombstoneCount += tombstones ?? counted;
    this.sizeBytes = start + batches.length;
    if (this.crcVerifiedEnd === start) this.crcVerifiedEnd = this.sizeBytes;
    // Index entries reach their files at seal/flushAll only: recovery rebuilds indexes from the
    // log anyway, and index writes between appends add metadata to every fsync's journal commit.
  }

  /** Kafka's LogSegment.append bookkeeping: stats plus one index entry per INDEX_INTERVAL_BYTES. */
  private track(buf: Buffer, at: number, position: number, size: number): void {
    const lastOffset = batchField.lastOffset(buf, at);
    const maxTimestamp = batchField.maxTimestamp(buf, at);
    if (position === 0) this.firstBatchTimestamp = maxTimestamp;
    if (maxTimestamp > this.maxTimestamp) {
      this.maxTimestamp = maxTimestamp;
      this.offsetOfMaxTimestamp = lastOffset;
    }
    this.recordCount += batchField.recordCount(buf, at);
    this.nextOffset = lastOffset + 1;
    if (this.bytesSinceLastIndexEntry > INDEX_INTERVAL_BYTES) {
      this.offsetIndex.append(lastOffset, position);
      this.timeIndex.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += size;
  }

  private persistIndexTails(): void {
    if (this.offsetIndex.entries > this.persistedIndexEntries) {
      const bytes = this.offsetIndex.encode(this.persistedIndexEntries);
      writeFully(this.indexFd, bytes, this.persistedIndexEntries * 8);
      this.persistedIndexEntries = this.offsetIndex.entries;
    }
    if (this.timeIndex.entries > this.persistedTimeEntries) {
      const bytes = this.timeIndex.encode(this.persistedTimeEntries);
      writeFully(this.timeIndexFd, bytes, this.persistedTimeEntries * 12);
      this.persistedTimeEntries = this.timeIndex.entries;
    }
  }

  private rewriteIndexFilesIfStale(): void {
    const expected = [
      [this.indexFd, this.offsetIndex.encode()],
      [this.timeIndexFd, this.timeIndex.encode()],
    ] as const;
    for (const [fd, bytes] of expected) {
      const current = fs.readFileSync(fd);
      if (current.equals(bytes)) continue;
      fs.ftruncateSync(fd, 0);
      writeFully(fd, bytes, 0);
      fs.fdatasyncSync(fd);
    }
    this.persistedIndexEntries = this.offsetIndex.entries;
    this.persistedTimeEntries = this.timeIndex.entries;
  }

  /** Byte position from which a scan finds the batch holding `offset` (or the first after it). */
  lookup(offset: number): number {
    return this.offsetIndex.lookup(offset);
  }

  /** Where served batches end: the log's size, or where recorded corruption starts. */
  get readableEnd(): number {
    return this.corruption ? Math.min(this.sizeBytes, this.corruption.position) : this.sizeBytes;
  }

  /** Reads log bytes at `position` into `target[0, length)`; returns how many were there. */
  readLog(target: Buffer, position: number, length = target.length): number {
    return readFully(this.logFd, target, position, length);
  }

  /**
   * Byte position from which a scan finds the batch holding `offset`: the index floor, or where
   * the last read stopped when that is past the floor and below `offset` (sequential readers then
   * start right at their next batch instead of re-reading the one before it).
   */
  scanStart(offset: number): number {
    const floor = this.offsetIndex.lookup(offset);
    const hint = this.readHint;
    return hint !== null && hint.afterOffset < offset && hint.position > floor ? hint.position : floor;
  }

  /** Counts the tombstones by reading every batch (CRC-checked; a corrupt tail is not counted). */
  scanTombstones(): void {
    let count = 0;
    const cursor = this.batches(0);
    while (cursor.next()) count += countTombstones(cursor.buf, cursor.bufPos);
    this.tombstoneCount = count;
  }

  /** A cursor over whole batches from `position`, CRC-checked, bounded by `end` (default: all). */
  batches(position = 0, options: { end?: number; windowBytes?: number } = {}): BatchCursor {
    const limit = this.readableEnd;
    return new BatchCursor(this.logFd, position, Math.min(options.end ?? limit, limit), {
      verifyCrc: true,
      headersOnly: false,
      windowBytes: options.windowBytes ?? 1 << 20,
      trust: this,
    });
  }

  /** A cursor over batch headers only from `position` (no CRC: bodies are not read), to the readable end. */
  batchHeaders(position = 0): BatchCursor {
    return new BatchCursor(this.logFd, position, this.readableEnd, {
      verifyCrc: false,
      headersOnly: true,
      windowBytes: HEADER_SCAN_WINDOW_BYTES,
    });
  }

  /** Closing bookkeeping (Kafka's onBecomeInactiveSegment): the final time-index entry. */
  seal(): void {
    this.timeIndex.maybeAppend(this.maxTimestamp, this.offsetOfMaxTimestamp, true);
    this.persistIndexTails();
  }

  /** Makes appended log bytes durable (the per-append path: indexes are rebuilt on recovery). */
  async flushLog(): Promise<void> {
    await fdatasync(this.logFd);
  }

  async flushAll(): Promise<void> {
    this.persistIndexTails();
    await Promise.all([fdatasync(this.logFd), fdatasync(this.indexFd), fdatasync(this.timeIndexFd)]);
  }

  /** Renames the three files to a new suffix ("" for live, ".swap", ".deleted", …). */
  renameTo(suffix: string): void {
    for (const kind of ["log", "index", "timeindex"] as const) {
      const from = this.filePath(kind);
      const to = path.join(this.dir, segmentFileName(this.baseOffset, kind, suffix));
      fs.renameSync(from, to);
    }
    this.suffix = suffix;
  }

  close(): void {
    if (this.logFd === -1) return;
    for (const fd of [this.logFd, this.indexFd, this.timeIndexFd]) fs.closeSync(fd);
    this.logFd = this.indexFd = this.timeIndexFd = -1;
  }

  /** Renames the files to `.deleted` and closes them; the caller unlinks them after the delay. */
  retire(): string[] {
    this.close();
    this.renameTo(".deleted");
    return (["log", "index", "timeindex"] as const).map((kind) => this.filePath(kind));
  }
}
