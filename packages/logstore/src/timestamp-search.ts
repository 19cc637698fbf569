import { batchField, decodeBatchRecords, type LogRecord } from "@lastword/record-batch";
import { CorruptSegmentError } from "./errors";
import type { Segment } from "./segment";

/** A record found by its timestamp: its offset and its own timestamp (≥ the one asked for). */
export interface TimestampAndOffset {
  offset: number;
  timestamp: number;
}

/** The offsets a search may answer: [minOffset, endOffset), the log start to the high watermark. */
export interface TimestampSearchBounds {
  minOffset: number;
  endOffset: number;
}

/**
 * Kafka's fetchOffsetByTimestamp (UnifiedLog, LogSegment.findOffsetByTimestamp,
 * FileRecords.searchForTimestamp): the first record in offset order, within `bounds`, whose
 * timestamp is ≥ `timestamp`, or null. Segments whose max timestamp is older are skipped whole; in
 * the first that is not, the time index names the last entry at or before `timestamp`, the offset
 * index turns it into a byte position, batch headers are walked from there to the first batch whose
 * max timestamp reaches `timestamp`, and only that batch is read and decoded. A segment whose
 * matching records all lie below the log start gives way to the next one.
 */
export function findOffsetByTimestamp(
  segments: readonly Segment[],
  timestamp: number,
  bounds: TimestampSearchBounds,
): TimestampAndOffset | null {
  for (const segment of segments) {
    if (segment.baseOffset >= bounds.endOffset) return null;
    if (segment.maxTimestamp < timestamp || segment.nextOffset <= bounds.minOffset) continue;
    const found = searchSegment(segment, timestamp, bounds);
    if (found === "past-end") return null;
    if (found !== null) return found;
  }
  return null;
}

function searchSegment(
  segment: Segment,
  timestamp: number,
  bounds: TimestampSearchBounds,
): TimestampAndOffset | "past-end" | null {
  const indexed = segment.timeIndex.lookup(timestamp);
  const headers = segment.batchHeaders(segment.lookup(Math.max(indexed, bounds.minOffset)));
  while (headers.next()) {
    const { buf, bufPos } = headers;
    if (batchField.baseOffset(buf, bufPos) >= bounds.endOffset) return "past-end";
    if (batchField.lastOffset(buf, bufPos) < bounds.minOffset) continue;
    if (batchField.maxTimestamp(buf, bufPos) < timestamp) continue;
    const found = firstRecordAtOrAfter(segment, headers.position, headers.size, timestamp, bounds);
    if (found !== null) return found;
  }
  if (headers.defect !== null)
    throw new CorruptSegmentError(segment.baseOffset, headers.position, headers.defect);
  // Past a closed segment's bad bytes a match may hide: say so rather than answer a later record.
  const { corruption } = segment;
  if (corruption !== null)
    throw new CorruptSegmentError(segment.baseOffset, corruption.position, corruption.reason);
  return null;
}

/** Reads (CRC-checked) and decodes the one batch at `position`: its first record the search wants. */
function firstRecordAtOrAfter(
  segment: Segment,
  position: number,
  size: number,
  timestamp: number,
  bounds: TimestampSearchBounds,
): TimestampAndOffset | "past-end" | null {
  const cursor = segment.batches(position, { end: position + size, windowBytes: size });
  if (!cursor.next()) {
    throw new CorruptSegmentError(segment.baseOffset, position, cursor.defect ?? "the batch is missing");
  }
  const records: LogRecord[] = [];
  decodeBatchRecords(cursor.buf, cursor.bufPos, records, bounds.minOffset, Number.POSITIVE_INFINITY);
  for (const record of records) {
    if (record.offset >= bounds.endOffset) return "past-end";
    if (record.timestamp >= timestamp) return { offset: record.offset, timestamp: record.timestamp };
  }
  return null;
}
