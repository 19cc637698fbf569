import { batchField, inflateBatch, RecordBatchWalk } from "@lastword/record-batch";
import type { AppendRecord } from "./hosted-log";

/** What one produce appends: records to encode, or one client batch appended as it was sent. */
export type ProducePayload = readonly AppendRecord[] | EncodedBatch;

/** A RecordBatch v2 as a Kafka client sent it, plain or compressed (PartitionLog.appendBatch). */
export interface EncodedBatch {
  batch: Buffer;
}

export function isEncodedBatch(payload: ProducePayload): payload is EncodedBatch {
  return !Array.isArray(payload);
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
  const batch = inflateBatch(payload.batch, 0);
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

/** How many records an append of `payload` writes. */
export function appendedCount(payload: ProducePayload): number {
  return isEncodedBatch(payload) ? batchField.recordCount(payload.batch, 0) : payload.length;
}
