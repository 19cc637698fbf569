import {
  batchCompression,
  batchField,
  COMPRESSION_MASK,
  CompressionError,
  inflateBatch,
  OFF_ATTRIBUTES,
  OFF_MAX_TIMESTAMP,
  RecordBatchWalk,
  setBaseOffset,
} from "@lastword/record-batch";
import type { AppendRecord } from "./hosted-log";

/** What one produce appends: records to encode, or one client batch appended as it was sent. */
export type ProducePayload = readonly AppendRecord[] | EncodedBatch;

/** A RecordBatch v2 as a Kafka client sent it, plain or compressed (PartitionLog.appendBatch). */
export interface EncodedBatch {
  batch: Buffer;
  /**
   * The batch's plain copy when it came compressed and was already inflated (Kafka Produce, in the
   * pool): the log validates and indexes it instead of inflating the batch again. It may be only the
   * batch's skeleton (`recordSkeleton`: values emptied), as nothing here reads values. Internal: its
   * CRC is not kept in step with the header fields the log writes.
   */
  inflated?: Buffer | undefined;
}

export function isEncodedBatch(payload: ProducePayload): payload is EncodedBatch {
  return !Array.isArray(payload);
}

/**
 * The batch with its plain copy: a compressed batch that came without one is inflated here, once,
 * so the log's validation and every walk of the append (key index, tombstone audit) share it
 * instead of each inflating the batch again. A batch that does not inflate is left without one:
 * the log refuses it as it always has (a corrupt batch).
 */
export function withPlainCopy(payload: EncodedBatch): EncodedBatch {
  const { batch, inflated } = payload;
  if (inflated || batchCompression(batch, 0) === 0) return payload;
  try {
    return { batch, inflated: inflateBatch(batch, 0) };
  } catch (error) {
    if (error instanceof CompressionError) return payload;
    throw error;
  }
}

/** One appended record as the key index and the tombstone audit see it. */
export interface AppendedRecord {
  key: Buffer | null;
  /** True for a key with a null value. */
  tombstone: boolean;
  offset: number;
  /** The record's timestamp; undefined when the log stamped it (a record without one). */
  timestamp: number | undefined;
}

const walk = new RecordBatchWalk();

/**
 * Calls `visit` for every record of an append that wrote at `baseOffset`: from the records, or by
 * walking the batch in place (its base offset is the log's by now; a compressed one inflated first),
 * so a batch appended as sent is never decoded into objects. Keys are views of the batch (or of its
 * inflated copy), valid while it is.
 */
export function forEachAppended(
  payload: ProducePayload,
  baseOffset: number,
  visit: (record: AppendedRecord) => void,
): void {
  if (!isEncodedBatch(payload)) {
    for (let i = 0; i < payload.length; i++) {
      const { key, value, timestamp } = payload[i]!;
      visit({ key, tombstone: key !== null && value === null, offset: baseOffset + i, timestamp });
    }
    return;
  }
  const batch = plainOf(payload, baseOffset);
  walk.reset(batch, 0, batch.length);
  walk.nextBatch();
  while (walk.nextRecord()) {
    const key = walk.keyStart < 0 ? null : batch.subarray(walk.keyStart, walk.keyEnd);
    visit({
      key,
      tombstone: key !== null && walk.valueStart < 0,
      offset: walk.offset,
      timestamp: walk.timestamp,
    });
  }
}

/**
 * The appended batch plain: inflated now, or its copy inflated before the append with what the log
 * wrote into the batch since (the base offset; a LogAppendTime topic's timestamp type and time).
 */
function plainOf(payload: EncodedBatch, baseOffset: number): Buffer {
  const { batch, inflated } = payload;
  if (!inflated) return inflateBatch(batch, 0);
  setBaseOffset(inflated, baseOffset);
  inflated.writeInt16BE(batch.readInt16BE(OFF_ATTRIBUTES) & ~COMPRESSION_MASK, OFF_ATTRIBUTES);
  batch.copy(inflated, OFF_MAX_TIMESTAMP, OFF_MAX_TIMESTAMP, OFF_MAX_TIMESTAMP + 8);
  return inflated;
}

/** How many records an append of `payload` writes. */
export function appendedCount(payload: ProducePayload): number {
  return isEncodedBatch(payload) ? batchField.recordCount(payload.batch, 0) : payload.length;
}
