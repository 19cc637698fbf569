import {
  BATCH_HEADER_BYTES,
  COMPRESSION_MASK,
  crc32c,
  DELETE_HORIZON_FLAG,
  inflateBatch,
  LOG_OVERHEAD_BYTES,
  OFF_ATTRIBUTES,
  OFF_BASE_TIMESTAMP,
  OFF_CRC,
  OFF_LENGTH,
  OFF_MAX_TIMESTAMP,
  OFF_RECORD_COUNT,
  RecordBatchWalk,
  readBatchHeader,
  readInt64,
  TIMESTAMP_TYPE_FLAG,
  writeInt64,
} from "@lastword/record-batch";

/** What decides a kept record's fate beyond its offset: the view's end, and the time. */
export interface KeepRule {
  end: number;
  /** Tombstones in a batch whose delete horizon is at or before this are expired (Kafka's cleaner rule). */
  nowMs: number;
}

/** The first index of `offsets` holding a value ≥ `offset` (binary search). */
export function firstAtOrAfter(offsets: Float64Array, offset: number): number {
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const walk = new RecordBatchWalk();

/**
 * The batch at `bytes[pos]` with only the records whose offsets are in `keep` (ascending, all
 * within the batch), as Kafka's cleaner rebuilds one: same base offset, last offset delta,
 * timestamps and producer fields, the kept records' bytes copied as they are (their deltas stay
 * valid against the unchanged base), plain (a compressed batch is inflated first), new length, max
 * timestamp and CRC. Expired tombstones go too, except the record just below the view's end, which
 * stays so a client that advances by its last record's offset reaches the end. Null when nothing
 * is left.
 */
export function keptBatch(bytes: Buffer, pos: number, keep: Float64Array, rule: KeepRule): Buffer | null {
  const plain = inflateBatch(bytes, pos);
  const size = plain.readInt32BE(OFF_LENGTH) + LOG_OVERHEAD_BYTES;
  const attributes = plain.readInt16BE(OFF_ATTRIBUTES);
  const horizon =
    (attributes & DELETE_HORIZON_FLAG) !== 0
      ? readInt64(plain, OFF_BASE_TIMESTAMP)
      : Number.POSITIVE_INFINITY;
  const expired = rule.nowMs >= horizon;
  const appendTime = (attributes & TIMESTAMP_TYPE_FLAG) !== 0;
  const out = Buffer.allocUnsafe(size);
  plain.copy(out, 0, 0, BATCH_HEADER_BYTES);
  let at = BATCH_HEADER_BYTES;
  let kept = 0;
  let maxTimestamp = appendTime ? readInt64(plain, OFF_MAX_TIMESTAMP) : -1;
  let k = 0;
  walk.reset(plain, 0, size);
  walk.nextBatch();
  // A record starts where the one before it ended (its length varint first).
  for (let start = BATCH_HEADER_BYTES; walk.nextRecord(); start = walk.recordEnd) {
    while (k < keep.length && keep[k]! < walk.offset) k++;
    if (k >= keep.length || keep[k] !== walk.offset) continue;
    if (expired && walk.valueStart < 0 && walk.offset !== rule.end - 1) continue;
    at += plain.copy(out, at, start, walk.recordEnd);
    kept++;
    if (!appendTime && walk.timestamp > maxTimestamp) maxTimestamp = walk.timestamp;
  }
  if (kept === 0) return null;
  out.writeInt16BE(attributes & ~COMPRESSION_MASK, OFF_ATTRIBUTES);
  out.writeInt32BE(kept, OFF_RECORD_COUNT);
  out.writeInt32BE(at - LOG_OVERHEAD_BYTES, OFF_LENGTH);
  writeInt64(out, maxTimestamp, OFF_MAX_TIMESTAMP);
  out.writeUInt32BE(crc32c(out.subarray(OFF_ATTRIBUTES, at)), OFF_CRC);
  return out.subarray(0, at);
}

/**
 * Whether the batch at `bytes[pos]`, holding `kept` of the view's offsets, goes as stored: every
 * record kept and none an expired tombstone (a batch without a passed horizon has none).
 */
export function passesWhole(bytes: Buffer, pos: number, kept: number, rule: KeepRule): boolean {
  const header = readBatchHeader(bytes, pos);
  if (kept !== header.recordCount) return false;
  return header.deleteHorizonMs === null || rule.nowMs < header.deleteHorizonMs;
}
