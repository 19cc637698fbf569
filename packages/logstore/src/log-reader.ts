import {
  BATCH_HEADER_BYTES,
  batchCrcMatches,
  batchField,
  batchHeaderDefect,
  decodeBatchRecords,
  LOG_OVERHEAD_BYTES,
  type LogRecord,
} from "@lastword/record-batch";
import { CorruptSegmentError } from "./errors";
import { invariant } from "./invariant";
import type { Segment } from "./segment";

// The read path. Per segment a read costs two positional reads: a small probe for the headers up
// to the first batch it serves (one header when the segment's read hint or index points right at
// it), then ONE read of everything its byte budget can take from there into a fresh buffer, of
// which whole batches are handed out as views (readBatches) or decoded into records whose
// key/value are views (read). The buffer is fresh because the caller owns what it gets back.

/** Largest single read: a bigger budget takes several windows (views stay valid; batches join by copy). */
const MAX_WINDOW_BYTES = 8 * 1024 * 1024;
/** Probe size: covers the headers within one index interval when batches are small. */
const PROBE_BYTES = 8 * 1024;
/** Reused: probe bytes never leave this module (reads are synchronous, so never interleaved). */
const probe = Buffer.allocUnsafeSlow(PROBE_BYTES);
/**
 * From this batch size on, a window is cut at whole batches (one 12-byte read per batch): smaller
 * ones are read ahead blind, where one read beats a read per batch.
 */
const LARGE_BATCH_BYTES = 64 * 1024;
const lengthProbe = Buffer.allocUnsafeSlow(LOG_OVERHEAD_BYTES);

export interface ReadBounds {
  /** Records below this are not served (the log start offset). */
  minOffset: number;
  /** Batches at or above this are not served yet (the high watermark). */
  endOffset: number;
  maxRecords: number;
  /** Batch bytes, as Kafka's fetch counts them; the first batch is served even when larger. */
  maxBytes: number;
  /**
   * A read stops at a segment whose bytes are in a remote tier only (it has no file to read);
   * that segment is left here, so the caller can fetch it back and read on.
   */
  stoppedAt?: { remote: Segment | null };
  /**
   * Batches `read` leaves out of the records it returns (markers, aborted transactions' data):
   * their bytes do not count against maxBytes, so a read across a large aborted transaction still
   * reaches the records after it.
   */
  skip?: (buf: Buffer, pos: number) => boolean;
}

/** Index of the last segment whose base offset is ≤ `offset` (0 when none is). */
export function floorSegmentIndex(segments: readonly Segment[], offset: number): number {
  let low = 0;
  let high = segments.length - 1;
  let found = 0;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (segments[mid]!.baseOffset <= offset) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/** State of one read across segments. */
interface ReadState {
  /** Records below this are not served: max(from, log start). */
  minOffset: number;
  bounds: ReadBounds;
  /** Batch bytes served so far. */
  bytes: number;
  /** Records (read) or bytes (readBatches) served so far: the first is always served whatever its size. */
  served: number;
  /** Records still wanted (read) or +∞ (readBatches). */
  recordsLeft: number;
  /** Memory for a window of `length` bytes (fresh, or the caller's `into` buffer). */
  allocate(length: number): Buffer;
  /** Called per served batch (whole, CRC-checked); returns false to stop the read. */
  serve(buf: Buffer, pos: number, size: number): boolean;
  /** Bad bytes met: where and why (the read stops there). */
  defect: { segment: Segment; position: number; reason: string } | null;
}

/**
 * Serves the batches of `segment` holding offsets ≥ `from` (see ReadState). Returns true when the
 * read should go on into the next segment, false when it is complete or hit bad bytes.
 */
function readSegment(segment: Segment, from: number, state: ReadState): boolean {
  let at: boolean | number = segment.baseOffset <= from ? segment.scanStart(from) : 0;
  while (typeof at === "number") at = readWindow(segment, at, state);
  return at;
}

/**
 * From byte `start`: finds the first batch to serve by its header, reads what the read can take
 * in one go and serves it. Returns where to go on in this segment when the window ended short of
 * what the read may still take, else as readSegment.
 */
function readWindow(segment: Segment, start: number, state: ReadState): boolean | number {
  const { bounds } = state;
  const limit = segment.readableEnd;
  let at = start;
  // 1. Headers only, up to the first batch to serve: skipped batches' bodies are never read.
  let probeStart = 0;
  let probeEnd = 0;
  let size = 0;
  for (;;) {
    if (at >= limit) return endOfSegment(segment, state);
    if (limit - at < BATCH_HEADER_BYTES) return fail(state, segment, at, "truncated batch header");
    if (at < probeStart || at + BATCH_HEADER_BYTES > probeEnd) {
      probeStart = at;
      probeEnd = at + segment.readLog(probe, at, Math.min(PROBE_BYTES, limit - at));
      if (probeEnd - at < BATCH_HEADER_BYTES) return fail(state, segment, at, "truncated batch header");
    }
    const p = at - probeStart;
    const headerDefect = batchHeaderDefect(probe, p);
    if (headerDefect !== null) return fail(state, segment, at, headerDefect);
    size = batchField.sizeBytes(probe, p);
    if (at + size > limit)
      return fail(state, segment, at, `batch of ${size} bytes runs past the end of the data`);
    if (batchField.lastOffset(probe, p) >= state.minOffset) break;
    at += size;
  }
  const p = at - probeStart;
  if (batchField.baseOffset(probe, p) >= bounds.endOffset) return false;
  // At least one record, not one batch: compaction leaves batches with no record ≥ `from`.
  if (state.served > 0 && state.bytes + size > bounds.maxBytes) return false;
  // 2. One read for what the read can still take: its byte budget, at most MAX_WINDOW_BYTES, and
  // under maxRecords about what that many records take at this batch's bytes per record (a batch
  // wholly wanted that already holds them is read alone: a point lookup reads one batch). A
  // window that ends short of the budget is followed by the next one.
  const count = batchField.recordCount(probe, p);
  const wholeBatchEnough = batchField.baseOffset(probe, p) >= state.minOffset && count >= state.recordsLeft;
  const byRecords = size + Math.ceil((state.recordsLeft * size) / Math.max(count, 1));
  const wanted = wholeBatchEnough
    ? size
    : Math.max(size, Math.min(bounds.maxBytes - state.bytes, MAX_WINDOW_BYTES, byRecords));
  const length =
    size >= LARGE_BATCH_BYTES
      ? wholeBatchesWithin(segment, at, size, Math.min(wanted, limit - at), bounds.endOffset)
      : Math.min(wanted, limit - at);
  const window = state.allocate(length);
  if (segment.readLog(window, at) < length)
    return fail(state, segment, at, "the log file is shorter than its size");
  let pos = 0;
  let lastServed = -1;
  let result: boolean | number = true;
  for (;;) {
    if (pos > 0) {
      if (at + pos >= limit) {
        result = endOfSegment(segment, state);
        break;
      }
      if (pos + BATCH_HEADER_BYTES > length) {
        // The window ends inside the next header: go on from there, or a torn tail.
        result =
          length < limit - at
            ? resumeAt(state, at + pos)
            : fail(state, segment, at + pos, "truncated batch header");
        break;
      }
      const headerDefect = batchHeaderDefect(window, pos);
      if (headerDefect !== null) {
        result = fail(state, segment, at + pos, headerDefect);
        break;
      }
      size = batchField.sizeBytes(window, pos);
      if (at + pos + size > limit) {
        result = fail(state, segment, at + pos, `batch of ${size} bytes runs past the end of the data`);
        break;
      }
      if (batchField.baseOffset(window, pos) >= bounds.endOffset) {
        result = false;
        break;
      }
      if (state.served > 0 && state.bytes + size > bounds.maxBytes) {
        result = false;
        break;
      }
      if (pos + size > length) {
        result = resumeAt(state, at + pos);
        break;
      }
    }
    if (!verified(segment, window, pos, at + pos, size)) {
      result = fail(state, segment, at + pos, "CRC-32C mismatch");
      break;
    }
    state.bytes += size;
    lastServed = batchField.lastOffset(window, pos);
    // The read-back half of the append's check: a batch served from a segment lies in its offsets.
    invariant(
      batchField.baseOffset(window, pos) >= segment.baseOffset && lastServed < segment.nextOffset,
      () =>
        `segment ${segment.baseOffset} served a batch ending at ${lastServed}, past its end ${segment.nextOffset}`,
    );
    const more = state.serve(window, pos, size);
    pos += size;
    if (!more) {
      result = false;
      break;
    }
  }
  if (lastServed >= 0) segment.readHint = { afterOffset: lastServed, position: at + pos };
  return result;
}

/**
 * The window from `at` ending after the last whole batch that fits in `room` (the first, of `size`
 * bytes, always): with large batches a window cut by the budget would otherwise read most of a
 * batch it cannot serve (a 1 MiB Fetch budget over 600 KB batches read 1 MiB for one). Found by
 * reading each following batch's 12-byte length, one small read per large batch; it stops at a
 * batch not yet served (high watermark) or a length that makes no sense (the window's own walk
 * then meets it and says what is wrong).
 */
function wholeBatchesWithin(
  segment: Segment,
  at: number,
  size: number,
  room: number,
  endOffset: number,
): number {
  let end = at + size;
  while (end - at + BATCH_HEADER_BYTES <= room) {
    if (segment.readLog(lengthProbe, end, LOG_OVERHEAD_BYTES) < LOG_OVERHEAD_BYTES) break;
    const next = batchField.sizeBytes(lengthProbe, 0);
    if (next < BATCH_HEADER_BYTES || end - at + next > room) break;
    if (batchField.baseOffset(lengthProbe, 0) >= endOffset) break;
    end += next;
  }
  return end - at;
}

/** Where the next window starts when the read may still take a batch, else false (done). */
function resumeAt(state: ReadState, position: number): number | false {
  return state.served === 0 || state.bytes < state.bounds.maxBytes ? position : false;
}

/** CRC-checks a batch unless it lies in bytes already verified (or written) by this process. */
function verified(segment: Segment, buf: Buffer, pos: number, position: number, size: number): boolean {
  if (position + size <= segment.crcVerifiedEnd) return true;
  if (!batchCrcMatches(buf, pos, size)) return false;
  if (segment.crcVerifiedEnd === position) segment.crcVerifiedEnd = position + size;
  return true;
}

/** At the readable end: a closed segment's recorded corruption stops the read, else go on. */
function endOfSegment(segment: Segment, state: ReadState): boolean {
  const corruption = segment.corruption;
  return corruption === null ? true : fail(state, segment, corruption.position, corruption.reason);
}

function fail(state: ReadState, segment: Segment, position: number, reason: string): false {
  state.defect = { segment, position, reason };
  return false;
}

/** Runs a read over the segments from the one holding `from`; throws when it served nothing but met bad bytes. */
function runRead(segments: readonly Segment[], from: number, state: ReadState): void {
  for (let i = floorSegmentIndex(segments, from); i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.baseOffset >= state.bounds.endOffset) break;
    if (segment.remote !== null) {
      if (state.bounds.stoppedAt) state.bounds.stoppedAt.remote = segment;
      break;
    }
    if (!readSegment(segment, from, state)) break;
  }
  const defect = state.defect;
  if (defect !== null && state.served === 0) {
    throw new CorruptSegmentError(defect.segment.baseOffset, defect.position, defect.reason);
  }
}

/**
 * Records with offset ≥ `from`, located through the offset index (or the segment's read hint).
 * Synchronous on purpose: no segment can be swapped or deleted mid-read.
 */
export function readRecords(segments: readonly Segment[], from: number, bounds: ReadBounds): LogRecord[] {
  const out: LogRecord[] = [];
  const state: ReadState = {
    minOffset: Math.max(from, bounds.minOffset),
    bounds,
    bytes: 0,
    recordsLeft: bounds.maxRecords,
    defect: null,
    served: 0,
    allocate: freshWindow,
    serve(buf, pos, size) {
      if (bounds.skip?.(buf, pos)) {
        state.bytes -= size;
        return true;
      }
      const decoded = decodeBatchRecords(buf, pos, out, state.minOffset, state.recordsLeft);
      state.served += decoded;
      state.recordsLeft -= decoded;
      return state.recordsLeft > 0;
    },
  };
  runRead(segments, from, state);
  return out;
}

export interface BatchRead {
  /** Whole RecordBatch v2 batches, as stored (Kafka fetch style: the first may start before `from`). */
  bytes: Buffer;
  /** Offset to read from next: one past the last batch returned. */
  nextOffset: number;
}

/** A fresh buffer per window: what a read returns is the caller's to keep. */
function freshWindow(length: number): Buffer {
  return Buffer.allocUnsafeSlow(length);
}

/**
 * Whole batches holding offsets ≥ `from`, without decoding records: what a replication or
 * Kafka-protocol path serves as-is. Same bounds and CRC rules as `readRecords`; the batches of
 * one segment are one view of the buffer they were read into (copied only to join segments).
 * With `into`, batches are read into that buffer instead (bounded by its length; a first batch
 * larger than it gets a fresh buffer): `bytes` is then a view of `into`, valid until the caller
 * reuses it, and the read allocates nothing.
 */
export function readBatches(
  segments: readonly Segment[],
  from: number,
  bounds: ReadBounds,
  into?: Buffer,
): BatchRead {
  const chunks: Buffer[] = [];
  let run: { buf: Buffer; start: number; end: number } | null = null;
  let nextOffset = from;
  const state: ReadState = {
    minOffset: Math.max(from, bounds.minOffset),
    bounds: into ? { ...bounds, maxBytes: Math.min(bounds.maxBytes, into.length) } : bounds,
    bytes: 0,
    served: 0,
    recordsLeft: Number.POSITIVE_INFINITY,
    defect: null,
    allocate: into
      ? (length) =>
          state.bytes + length <= into.length
            ? into.subarray(state.bytes, state.bytes + length)
            : freshWindow(length)
      : freshWindow,
    serve(buf, pos, size) {
      state.served += size;
      // Batches read into `into` lie back to back from its start; others join in runs.
      if (into && buf.buffer === into.buffer) return nextAfter(buf, pos);
      if (run === null || run.buf !== buf || run.end !== pos) {
        if (run !== null) chunks.push(run.buf.subarray(run.start, run.end));
        run = { buf, start: pos, end: pos };
      }
      run.end += size;
      return nextAfter(buf, pos);
    },
  };
  function nextAfter(buf: Buffer, pos: number): boolean {
    nextOffset = batchField.lastOffset(buf, pos) + 1;
    return true;
  }
  runRead(segments, from, state);
  const last = run as { buf: Buffer; start: number; end: number } | null;
  if (last !== null) chunks.push(last.buf.subarray(last.start, last.end));
  if (chunks.length === 0 && into) return { bytes: into.subarray(0, state.bytes), nextOffset };
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), nextOffset };
}
