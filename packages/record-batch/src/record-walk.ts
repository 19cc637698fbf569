import {
  BATCH_HEADER_BYTES,
  COMPRESSION_MASK,
  LOG_OVERHEAD_BYTES,
  MAGIC_V2,
  OFF_ATTRIBUTES,
  OFF_BASE_TIMESTAMP,
  OFF_LAST_OFFSET_DELTA,
  OFF_LENGTH,
  OFF_MAGIC,
  OFF_MAX_TIMESTAMP,
  OFF_RECORD_COUNT,
  readInt32,
  readInt64,
  TIMESTAMP_TYPE_FLAG,
} from "./record-batch";

/** Bytes that are not whole, uncompressed RecordBatch v2 batches within the range walked. */
export class RecordBatchFormatError extends Error {}

const overrun = () => new RecordBatchFormatError("a record that overruns its batch");
const EMPTY = new Uint8Array(0);

/**
 * An in-place walk over the RecordBatch v2 batches in `buf[start, end)` and their records: the one
 * record walk of every reader that works on batch bytes without decoding them (the data plane's and
 * the REST API's stored frames, the log store's append validation and cleaner, the Kafka `.latest`
 * view's filter; `BatchRebuild` writes the records it keeps). Positions only, in this one reused
 * object (nothing allocated per record), every length checked against its record, its batch and
 * the range, nothing read past them. CRCs are not checked (`batchCrcMatches` does that; the log
 * store checked them when it read the batches). Uint8Array only, so it runs in browsers.
 *
 *   walk.reset(bytes, 0, bytes.length);
 *   while (walk.nextBatch()) while (walk.nextRecord()) use(walk.offset, walk.keyStart, …);
 */
export class RecordBatchWalk {
  buf: Uint8Array = EMPTY;
  /** The current batch: where it starts and ends in `buf`, its base offset and record count. */
  batchStart = 0;
  batchEnd = 0;
  baseOffset = 0;
  lastOffset = 0;
  recordCount = 0;
  /** The current record: offset, timestamp (LogAppendTime resolved) and field positions in `buf`. */
  offset = 0;
  timestamp = 0;
  /** The timestamp delta as stored, against the batch's base timestamp (a LogAppendTime batch's too). */
  timestampDelta = 0;
  /** Where the record starts (its length varint) and ends. */
  recordStart = 0;
  /** -1 for a null key. */
  keyStart = -1;
  keyEnd = -1;
  /** -1 for a null value (a tombstone). */
  valueStart = -1;
  valueEnd = -1;
  /** Where the record's headers start (Kafka's varint layout; see `forEachHeader`), and how many. */
  headersStart = 0;
  headerCount = 0;
  recordEnd = 0;

  #next = 0;
  #end = 0;
  #at = 0;
  #left = 0;
  #appendTime = false;
  #baseTimestamp = 0;
  #maxTimestamp = 0;

  /** Starts a walk over the batches of `buf[start, end)`. */
  reset(buf: Uint8Array, start = 0, end = buf.length): this {
    this.buf = buf;
    this.#next = start;
    this.#end = end;
    this.#left = 0;
    this.#at = this.batchEnd = start;
    return this;
  }

  /**
   * Steps to the next batch (skipping what is left of the current one); false when the range is
   * done. Throws RecordBatchFormatError for a cut batch or one that is not uncompressed v2.
   */
  nextBatch(): boolean {
    const buf = this.buf;
    const pos = this.#next;
    const end = this.#end;
    if (pos >= end) return false;
    if (pos + BATCH_HEADER_BYTES > end) throw overrun();
    const batchEnd = pos + LOG_OVERHEAD_BYTES + readInt32(buf, pos + OFF_LENGTH);
    if (batchEnd < pos + BATCH_HEADER_BYTES || batchEnd > end) throw overrun();
    // What the log store writes; anything else is not ours to guess at.
    if (buf[pos + OFF_MAGIC] !== MAGIC_V2 || (buf[pos + OFF_ATTRIBUTES + 1]! & COMPRESSION_MASK) !== 0) {
      throw new RecordBatchFormatError("a batch that is not uncompressed RecordBatch v2");
    }
    this.batchStart = pos;
    this.batchEnd = batchEnd;
    this.baseOffset = readInt64(buf, pos);
    this.lastOffset = this.baseOffset + readInt32(buf, pos + OFF_LAST_OFFSET_DELTA);
    this.recordCount = readInt32(buf, pos + OFF_RECORD_COUNT);
    this.#appendTime = (buf[pos + OFF_ATTRIBUTES + 1]! & TIMESTAMP_TYPE_FLAG) !== 0;
    this.#baseTimestamp = readInt64(buf, pos + OFF_BASE_TIMESTAMP);
    this.#maxTimestamp = readInt64(buf, pos + OFF_MAX_TIMESTAMP);
    this.#left = this.recordCount;
    this.#at = pos + BATCH_HEADER_BYTES;
    this.#next = batchEnd;
    return true;
  }

  /**
   * Steps to the next record of the current batch; false after its last (which must end where the
   * batch ends). Throws RecordBatchFormatError for a length past its record or batch.
   */
  nextRecord(): boolean {
    if (this.#left <= 0) {
      if (this.#at !== this.batchEnd) throw overrun();
      return false;
    }
    this.#left--;
    const buf = this.buf;
    at = this.recordStart = this.#at;
    const length = varint(buf, this.batchEnd);
    const recordEnd = at + length;
    if (length < 1 || recordEnd > this.batchEnd) throw overrun();
    at++; // record attributes: unused in v2
    const timestampDelta = varint(buf, recordEnd);
    this.offset = this.baseOffset + varint(buf, recordEnd);
    const keyLength = varint(buf, recordEnd);
    this.keyStart = keyLength < 0 ? -1 : at;
    at = this.keyEnd = at + Math.max(keyLength, 0);
    const valueLength = varint(buf, recordEnd);
    this.valueStart = valueLength < 0 ? -1 : at;
    at = this.valueEnd = at + Math.max(valueLength, 0);
    this.headerCount = varint(buf, recordEnd);
    this.headersStart = at;
    this.recordEnd = recordEnd;
    this.timestampDelta = timestampDelta;
    this.timestamp = this.#appendTime ? this.#maxTimestamp : this.#baseTimestamp + timestampDelta;
    this.#at = recordEnd;
    return true;
  }
}

/** Read position of `varint` (module state, so the record loop returns plain numbers). */
let at = 0;

/**
 * Kafka's zigzag varint at `at`, not past `limit`; a varint at `limit` (the key or value length
 * of a record whose key ran past its end, say) is refused there, so no length is ever trusted past
 * its record. One and two bytes (every field of records up to 8 KiB) are decoded here with int32
 * arithmetic, the limit checked in the same test, small enough for V8 to inline into the record
 * loop; longer ones and refusals go through `varintLong`.
 */
function varint(buf: Uint8Array, limit: number): number {
  const first = buf[at]!;
  if (first < 0x80 && at < limit) {
    at++;
    return (first >>> 1) ^ -(first & 1);
  }
  const second = buf[at + 1]!;
  if (second < 0x80 && at + 1 < limit) {
    at += 2;
    const v = (first & 0x7f) | (second << 7);
    return (v >>> 1) ^ -(v & 1);
  }
  return varintLong(buf, limit);
}

function varintLong(buf: Uint8Array, limit: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (at >= limit) throw overrun();
    const byte = buf[at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value % 2 === 1 ? -(value + 1) / 2 : value / 2;
    scale *= 128;
  }
  throw overrun();
}

/**
 * Calls `visit` with the positions of each of the `count` headers at `start` (Kafka's layout:
 * varint name length, UTF-8 name, varint value length (-1 = null), value), none past `end`.
 * valueStart is -1 for a null value. Headers are rare, so a callback costs nothing that matters.
 */
export function forEachHeader(
  buf: Uint8Array,
  start: number,
  count: number,
  end: number,
  visit: (nameStart: number, nameEnd: number, valueStart: number, valueEnd: number) => void,
): void {
  at = start;
  for (let n = 0; n < count; n++) {
    const nameLength = varint(buf, end);
    const nameStart = at;
    if (nameLength < 0 || nameStart + nameLength > end) throw overrun();
    at += nameLength;
    const valueLength = varint(buf, end);
    const valueStart = at;
    if (valueStart + Math.max(valueLength, 0) > end) throw overrun();
    at += Math.max(valueLength, 0);
    const next = at;
    visit(nameStart, nameStart + nameLength, valueLength < 0 ? -1 : valueStart, next);
    at = next;
  }
}

/**
 * The leading batches of `bytes` (whole, as a log read gives them) that start below `endOffset`:
 * their byte length, the offset after the last of them (-1 for none) and their record count.
 * Reads headers only.
 */
export function batchesBefore(
  bytes: Uint8Array,
  endOffset: number,
): { length: number; nextOffset: number; records: number } {
  let pos = 0;
  let nextOffset = -1;
  let records = 0;
  while (pos < bytes.length && readInt64(bytes, pos) < endOffset) {
    nextOffset = readInt64(bytes, pos) + readInt32(bytes, pos + OFF_LAST_OFFSET_DELTA) + 1;
    records += readInt32(bytes, pos + OFF_RECORD_COUNT);
    pos += LOG_OVERHEAD_BYTES + readInt32(bytes, pos + OFF_LENGTH);
  }
  return { length: Math.min(pos, bytes.length), nextOffset, records };
}
