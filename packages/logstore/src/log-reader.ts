import { CorruptSegmentError } from "./errors";
import { batchField, decodeBatchRecords, type LogRecord } from "./record-batch";
import type { Segment } from "./segment";

const MIN_READ_WINDOW_BYTES = 64 * 1024;
const MAX_READ_WINDOW_BYTES = 8 * 1024 * 1024;

export interface ReadBounds {
  /** Records below this are not served (the log start offset). */
  minOffset: number;
  /** Batches at or above this are not served yet (the high watermark). */
  endOffset: number;
  maxRecords: number;
  /** Batch bytes, as Kafka's fetch counts them; the first batch is served even when larger. */
  maxBytes: number;
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

/**
 * Records with offset ≥ `from`, located through the offset index and read batch by batch with
 * CRC checks. Synchronous on purpose: no segment can be swapped or deleted mid-read.
 */
export function readRecords(segments: readonly Segment[], from: number, bounds: ReadBounds): LogRecord[] {
  const out: LogRecord[] = [];
  const minOffset = Math.max(from, bounds.minOffset);
  let bytes = 0;
  for (let i = floorSegmentIndex(segments, from); i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.baseOffset >= bounds.endOffset) break;
    const start = segment.baseOffset <= from ? segment.lookup(from) : 0;
    const window = Math.min(Math.max(bounds.maxBytes - bytes, MIN_READ_WINDOW_BYTES), MAX_READ_WINDOW_BYTES);
    const cursor = segment.batches(start, { windowBytes: window });
    while (cursor.nextHeader()) {
      if (batchField.lastOffset(cursor.buf, cursor.bufPos) < minOffset) continue;
      if (batchField.baseOffset(cursor.buf, cursor.bufPos) >= bounds.endOffset) return out;
      // At least one record, not one batch: compaction leaves batches with no record ≥ `from`.
      if (out.length > 0 && bytes + cursor.size > bounds.maxBytes) return out;
      cursor.readAheadBytes = bounds.maxBytes - bytes;
      if (!cursor.body()) break;
      bytes += cursor.size;
      decodeBatchRecords(cursor.buf, cursor.bufPos, out, minOffset, bounds.maxRecords - out.length);
      if (out.length >= bounds.maxRecords) return out;
    }
    const defect = cursor.defect ?? (segment.corruption ? segment.corruption.reason : null);
    if (defect !== null) {
      if (out.length > 0) return out;
      throw new CorruptSegmentError(segment.baseOffset, cursor.position, defect);
    }
  }
  return out;
}

export interface BatchRead {
  /** Whole RecordBatch v2 batches, as stored (Kafka fetch style: the first may start before `from`). */
  bytes: Buffer;
  /** Offset to read from next: one past the last batch returned. */
  nextOffset: number;
}

/**
 * Whole batches holding offsets ≥ `from`, without decoding records: what a replication or
 * Kafka-protocol path serves as-is. Same bounds and CRC rules as `readRecords`.
 */
export function readBatches(segments: readonly Segment[], from: number, bounds: ReadBounds): BatchRead {
  const chunks: Buffer[] = [];
  const minOffset = Math.max(from, bounds.minOffset);
  let bytes = 0;
  let nextOffset = from;
  for (let i = floorSegmentIndex(segments, from); i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.baseOffset >= bounds.endOffset) break;
    const start = segment.baseOffset <= from ? segment.lookup(from) : 0;
    const window = Math.min(Math.max(bounds.maxBytes - bytes, MIN_READ_WINDOW_BYTES), MAX_READ_WINDOW_BYTES);
    const cursor = segment.batches(start, { windowBytes: window });
    let run: { buf: Buffer; start: number; end: number } | null = null;
    let halted = false;
    while (cursor.nextHeader()) {
      const lastOffset = batchField.lastOffset(cursor.buf, cursor.bufPos);
      if (lastOffset < minOffset) continue;
      const unpublished = batchField.baseOffset(cursor.buf, cursor.bufPos) >= bounds.endOffset;
      halted = unpublished || (bytes > 0 && bytes + cursor.size > bounds.maxBytes);
      if (halted) break;
      cursor.readAheadBytes = bounds.maxBytes - bytes;
      if (!cursor.body()) break;
      // Consecutive batches of one read window are returned as one view, without copying.
      if (run === null || run.buf !== cursor.buf || run.end !== cursor.bufPos) {
        if (run) chunks.push(run.buf.subarray(run.start, run.end));
        run = { buf: cursor.buf, start: cursor.bufPos, end: cursor.bufPos };
      }
      run.end += cursor.size;
      bytes += cursor.size;
      nextOffset = lastOffset + 1;
    }
    if (run) chunks.push(run.buf.subarray(run.start, run.end));
    const defect = cursor.defect ?? (segment.corruption && !halted ? segment.corruption.reason : null);
    if (defect !== null && bytes === 0)
      throw new CorruptSegmentError(segment.baseOffset, cursor.position, defect);
    if (defect !== null || halted) break;
  }
  return { bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), nextOffset };
}
