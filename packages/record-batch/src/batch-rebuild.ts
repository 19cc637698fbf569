import { crc32c } from "./crc32c";
import {
  BATCH_HEADER_BYTES,
  DELETE_HORIZON_FLAG,
  LOG_OVERHEAD_BYTES,
  OFF_ATTRIBUTES,
  OFF_BASE_TIMESTAMP,
  OFF_CRC,
  OFF_LENGTH,
  OFF_MAX_TIMESTAMP,
  OFF_RECORD_COUNT,
  readInt64,
  TIMESTAMP_TYPE_FLAG,
  varintSize,
  writeInt64,
  writeVarint,
} from "./record-batch";
import type { RecordBatchWalk } from "./record-walk";

/** A restamped timestamp delta can grow from 1 to 10 varint bytes, and its record's length prefix by 1. */
const MAX_GROWTH_PER_RECORD = 10;

/** Most bytes a rebuild of a batch of `sizeBytes` holding `count` records can write. */
export function rebuiltBatchBound(sizeBytes: number, count: number): number {
  return sizeBytes + count * MAX_GROWTH_PER_RECORD;
}

/**
 * Writes a batch made of some of the records of a plain source batch, as Kafka's cleaner rebuilds
 * one (and the Kafka `.latest` view filters one): the source's header (base offset, last offset
 * delta, producer fields, attributes), each kept record as `RecordBatchWalk` found it, then `seal`
 * sets the record count, length, max timestamp and CRC-32C. Records are copied byte for byte (their
 * deltas stay valid against the unchanged base), unless a delete horizon is stamped: that moves the
 * base timestamp (KIP-534), so each record kept after it gets its timestamp delta rewritten.
 * One reused object, nothing allocated per record.
 *
 *   rebuild.begin(src, pos, out, outPos);
 *   while (walk.nextRecord()) if (kept(walk)) rebuild.keep(walk);
 *   const bytes = rebuild.seal();
 *
 * A caller that judges every record before writing (to know whether to stamp a horizon) keeps the
 * positions the walk gave and appends them with `keepRecord`, so the batch is walked once.
 */
export class BatchRebuild {
  #src: Buffer = Buffer.alloc(0);
  #out: Buffer = Buffer.alloc(0);
  #start = 0;
  #at = 0;
  #count = 0;
  #appendTime = false;
  #sourceBaseTimestamp = 0;
  /** The stamped delete horizon (the new base timestamp), or null: records are copied as they are. */
  #horizonMs: number | null = null;
  /** The written batch's max timestamp: the source's for LogAppendTime, else the largest kept. */
  maxTimestamp = -1;

  /** Starts a batch at `out[outPos]` (room for `rebuiltBatchBound` bytes) from the batch at `src[pos]`. */
  begin(src: Buffer, pos: number, out: Buffer, outPos: number): this {
    src.copy(out, outPos, pos, pos + BATCH_HEADER_BYTES);
    this.#src = src;
    this.#out = out;
    this.#start = outPos;
    this.#at = outPos + BATCH_HEADER_BYTES;
    this.#count = 0;
    this.#appendTime = (src[pos + OFF_ATTRIBUTES + 1]! & TIMESTAMP_TYPE_FLAG) !== 0;
    this.#sourceBaseTimestamp = readInt64(src, pos + OFF_BASE_TIMESTAMP);
    this.#horizonMs = null;
    this.maxTimestamp = this.#appendTime ? readInt64(src, pos + OFF_MAX_TIMESTAMP) : -1;
    return this;
  }

  /** Records kept so far. */
  get recordCount(): number {
    return this.#count;
  }

  /** Marks the batch with delete horizon `horizonMs` (KIP-534); call before keeping any record. */
  stampDeleteHorizon(horizonMs: number): this {
    const out = this.#out;
    const attributes = out.readInt16BE(this.#start + OFF_ATTRIBUTES);
    out.writeInt16BE(attributes | DELETE_HORIZON_FLAG, this.#start + OFF_ATTRIBUTES);
    writeInt64(out, horizonMs, this.#start + OFF_BASE_TIMESTAMP);
    this.#horizonMs = horizonMs;
    return this;
  }

  /** Appends the walk's current record (of the batch `begin` was given). */
  keep(walk: RecordBatchWalk): void {
    this.keepRecord(walk.recordStart, walk.recordEnd, walk.timestampDelta);
  }

  /**
   * Appends the record at `src[recordStart, recordEnd)` of the source batch, whose stored timestamp
   * delta is `timestampDelta` (RecordBatchWalk's positions, kept by a caller that judged every
   * record before writing any).
   */
  keepRecord(recordStart: number, recordEnd: number, timestampDelta: number): void {
    this.#count++;
    const timestamp = this.#sourceBaseTimestamp + timestampDelta;
    if (!this.#appendTime && timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
    if (this.#horizonMs === null) {
      this.#at += this.#src.copy(this.#out, this.#at, recordStart, recordEnd);
    } else {
      this.#restamp(recordStart, recordEnd, timestamp - this.#horizonMs);
    }
  }

  /**
   * Writes a record with a new timestamp delta: length, attributes byte, the new delta, then
   * everything from the offset delta on as it is.
   */
  #restamp(recordStart: number, recordEnd: number, timestampDelta: number): void {
    const src = this.#src;
    const bodyStart = skipVarint(src, recordStart);
    const rest = skipVarint(src, bodyStart + 1);
    const length = 1 + varintSize(timestampDelta) + (recordEnd - rest);
    let w = writeVarint(this.#out, length, this.#at);
    this.#out[w++] = src[bodyStart]!;
    w = writeVarint(this.#out, timestampDelta, w);
    this.#at = w + src.copy(this.#out, w, rest, recordEnd);
  }

  /** Sets record count, length, max timestamp and CRC-32C; answers the batch's size in bytes. */
  seal(): number {
    const out = this.#out;
    const start = this.#start;
    out.writeInt32BE(this.#count, start + OFF_RECORD_COUNT);
    out.writeInt32BE(this.#at - start - LOG_OVERHEAD_BYTES, start + OFF_LENGTH);
    writeInt64(out, this.maxTimestamp, start + OFF_MAX_TIMESTAMP);
    out.writeUInt32BE(crc32c(out.subarray(start + OFF_ATTRIBUTES, this.#at)), start + OFF_CRC);
    return this.#at - start;
  }

  /**
   * Seals the batch without records, as Kafka's writeEmptyHeader does: its offsets and max timestamp
   * kept, no delete horizon, the base timestamp set to the max timestamp.
   */
  sealEmpty(): number {
    const out = this.#out;
    const start = this.#start;
    if (this.#count !== 0) throw new Error("sealEmpty after records were kept");
    const attributes = out.readInt16BE(start + OFF_ATTRIBUTES) & ~DELETE_HORIZON_FLAG;
    out.writeInt16BE(attributes, start + OFF_ATTRIBUTES);
    this.maxTimestamp = readInt64(out, start + OFF_MAX_TIMESTAMP);
    writeInt64(out, this.maxTimestamp, start + OFF_BASE_TIMESTAMP);
    return this.seal();
  }
}

/** The position after the varint at `pos`. */
function skipVarint(buf: Uint8Array, pos: number): number {
  while (buf[pos++]! >= 0x80);
  return pos;
}
