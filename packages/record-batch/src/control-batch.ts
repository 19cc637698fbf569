import {
  CONTROL_FLAG,
  decodeBatch,
  encodeRecordBatch,
  OFF_ATTRIBUTES,
  type TimestampType,
  TRANSACTIONAL_FLAG,
} from "./record-batch";
import { RecordBatchFormatError } from "./record-walk";

// Kafka's end-transaction markers (EndTransactionMarker / ControlRecordType): a control batch is
// transactional and control in its attributes, carries the transaction's producer id and epoch,
// no sequence (-1), and exactly one record whose key is `version i16 (0) | type i16` (0 ABORT,
// 1 COMMIT) and whose value is `version i16 (0) | coordinatorEpoch i32`. Markers are never
// compressed, as Kafka writes them.

export const CONTROL_TYPE_ABORT = 0;
export const CONTROL_TYPE_COMMIT = 1;
const CONTROL_KEY_VERSION = 0;
const MARKER_VALUE_VERSION = 0;
const CONTROL_KEY_BYTES = 4;
const MARKER_VALUE_BYTES = 6;

/** What a COMMIT or ABORT marker says. */
export interface TxnMarker {
  commit: boolean;
  coordinatorEpoch: number;
}

export interface ControlBatchOptions {
  baseOffset: number;
  producerId: number;
  producerEpoch: number;
  commit: boolean;
  coordinatorEpoch: number;
  timestampMs: number;
  timestampType?: TimestampType;
  partitionLeaderEpoch?: number;
}

/** The batch's attributes say it belongs to a transaction (data or marker). */
export function isTransactionalBatch(buf: Uint8Array, pos: number): boolean {
  return ((buf[pos + OFF_ATTRIBUTES + 1]! & TRANSACTIONAL_FLAG) as number) !== 0;
}

/** The batch's attributes say it is a control batch (a marker), never shown as records. */
export function isControlBatch(buf: Uint8Array, pos: number): boolean {
  return ((buf[pos + OFF_ATTRIBUTES + 1]! & CONTROL_FLAG) as number) !== 0;
}

/** One COMMIT/ABORT marker batch (one record, uncompressed) at `baseOffset`. */
export function encodeControlBatch(options: ControlBatchOptions): Buffer {
  const key = Buffer.alloc(CONTROL_KEY_BYTES);
  key.writeInt16BE(CONTROL_KEY_VERSION, 0);
  key.writeInt16BE(options.commit ? CONTROL_TYPE_COMMIT : CONTROL_TYPE_ABORT, 2);
  const value = Buffer.alloc(MARKER_VALUE_BYTES);
  value.writeInt16BE(MARKER_VALUE_VERSION, 0);
  value.writeInt32BE(options.coordinatorEpoch, 2);
  return encodeRecordBatch([{ key, value, timestamp: options.timestampMs }], {
    baseOffset: options.baseOffset,
    appendTimeMs: options.timestampMs,
    ...(options.timestampType && { timestampType: options.timestampType }),
    producer: {
      producerId: options.producerId,
      producerEpoch: options.producerEpoch,
      baseSequence: -1,
      partitionLeaderEpoch: options.partitionLeaderEpoch ?? -1,
      attributes: TRANSACTIONAL_FLAG | CONTROL_FLAG,
    },
  });
}

/**
 * The marker a control batch at `pos` holds; RecordBatchFormatError for a control batch that is
 * not a well-formed marker (another control type, a short key or value, not one record).
 */
export function readTxnMarker(buf: Buffer, pos: number): TxnMarker {
  if (!isControlBatch(buf, pos)) throw new RecordBatchFormatError("not a control batch");
  const { records } = decodeBatch(buf, pos);
  const record = records[0];
  if (records.length !== 1 || !record) {
    throw new RecordBatchFormatError(`a marker holds one record, not ${records.length}`);
  }
  const { key, value } = record;
  if (key === null || key.length < CONTROL_KEY_BYTES) throw new RecordBatchFormatError("short control key");
  const type = key.readInt16BE(2);
  if (type !== CONTROL_TYPE_ABORT && type !== CONTROL_TYPE_COMMIT) {
    throw new RecordBatchFormatError(`unknown control record type ${type}`);
  }
  if (value === null || value.length < MARKER_VALUE_BYTES) {
    throw new RecordBatchFormatError("short marker value");
  }
  return { commit: type === CONTROL_TYPE_COMMIT, coordinatorEpoch: value.readInt32BE(2) };
}
