import {
  BATCH_HEADER_BYTES,
  batchCrcMatches,
  batchField,
  COMPRESSION_MASK,
  CONTROL_FLAG,
  CompressionError,
  compressionName,
  crc32c,
  forEachHeader,
  inflateBatch,
  MAGIC_V2,
  OFF_ATTRIBUTES,
  OFF_BASE_SEQUENCE,
  OFF_CRC,
  OFF_LAST_OFFSET_DELTA,
  OFF_MAGIC,
  OFF_MAX_TIMESTAMP,
  OFF_PRODUCER_EPOCH,
  OFF_PRODUCER_ID,
  RecordBatchFormatError,
  RecordBatchWalk,
  readInt32,
  readInt64,
  TIMESTAMP_TYPE_FLAG,
  TRANSACTIONAL_FLAG,
  writeInt64,
} from "@lastword/record-batch";
import { type TopicConfig, timestampBounds } from "@lastword/topic-config";
import { InvalidRecordError, InvalidTxnStateError, RecordTooLargeError } from "./errors";
import { NO_PRODUCER_ID, type ProducerAppend, validateProducerAppend } from "./producer-state";
import { storedCodec } from "./stored-compression";

// The one set of rules every batch meets before the log writes it, whoever built it: the log
// store's own encoder (records appended through `append`) or a client (a Kafka Produce appended
// as sent through `appendBatch`). Everything is checked where it lies, by the in-place record
// walk (a compressed batch's records on its inflated copy: the stored bytes stay the client's);
// nothing is decoded into objects and nothing is re-encoded. The only bytes changed are
// those Kafka's LogValidator changes: the timestamp type and max timestamp of a LogAppendTime
// topic (then the CRC, which covers them) — the base offset is the log's to write, at append.

/** What the log needs to know of a batch it is about to write, read while validating it. */
export interface ValidatedBatch {
  recordCount: number;
  /** Records with a key and a null value. */
  tombstones: number;
  maxTimestamp: number;
  /** The idempotent producer fields, or null for a batch without a producer id. */
  producer: ProducerAppend | null;
  /** A transactional data batch (it has a producer): it opens or extends its producer's transaction. */
  transactional: boolean;
}

export interface BatchValidationOptions {
  /** The log's clock now: a LogAppendTime topic stamps it on the batch. */
  appendTimeMs: number;
  /** False for a batch the log store just encoded itself (its CRC is right by construction). */
  checkCrc: boolean;
  /**
   * False when the batch is compressed after validation (the topic's codec): the size limits then
   * apply to the stored, compressed bytes, and the caller checks them with `checkSize`.
   */
  checkSize?: boolean;
  /** The plain copy of a compressed `batch`, already inflated by the caller: walked instead of inflating here. */
  inflated?: Buffer;
}

/** A refused batch's records, by their index in the batch (Kafka's per-record errors, Produce v8+). */
export class InvalidBatchRecordsError extends InvalidRecordError {
  readonly recordIndexes: readonly number[];

  constructor(message: string, recordIndexes: readonly number[]) {
    super(message);
    this.recordIndexes = recordIndexes;
  }
}

/**
 * A batch with records whose CreateTime timestamps lie outside the topic's bounds around the append
 * time (`message.timestamp.before.max.ms` / `after.max.ms` / `difference.max.ms`): Kafka's
 * INVALID_TIMESTAMP, each such record named.
 */
export class InvalidTimestampError extends InvalidBatchRecordsError {}

/**
 * A batch whose bytes are not what its own fields say (CRC-32C mismatch, a record overrunning
 * itself): damaged on the way, where the other refusals are well-formed batches the log will not take.
 */
export class CorruptBatchError extends InvalidRecordError {}

const walk = new RecordBatchWalk();

/**
 * Validates `batch` (exactly one whole RecordBatch v2, plain or compressed) for `config`, in place:
 * header fields, CRC-32C and sizes against max.message.bytes and segment.bytes (of the bytes as
 * they are, compressed ones included), then every record by the walk — over the inflated copy of a
 * compressed batch — (lengths within their record, consecutive offset deltas, timestamps, header
 * layout, a key on every record of a compacted topic). Throws InvalidRecordError (or its
 * per-record subclass) and RecordTooLargeError; on success the batch may have been restamped for
 * LogAppendTime (its header only), nothing else changed.
 */
export function validateBatch(
  batch: Buffer,
  config: TopicConfig,
  options: BatchValidationOptions,
): ValidatedBatch {
  const header = checkHeader(batch, config, options);
  const plain = options.inflated ?? plainRecords(batch);
  const bounds = header.appendTime ? { min: null, max: null } : timestampBounds(config, options.appendTimeMs);
  const untimely: number[] = [];
  const keyless: number[] = [];
  let tombstones = 0;
  let maxTimestamp = -1;
  let index = 0;
  try {
    walk.reset(plain, 0, plain.length);
    walk.nextBatch();
    while (walk.nextRecord()) {
      if (walk.offset - walk.baseOffset !== index) {
        throw new InvalidRecordError(
          `record ${index} has offset delta ${walk.offset - walk.baseOffset}; a batch's records count up from 0`,
        );
      }
      if (walk.timestamp < 0 && !header.appendTime) {
        throw new InvalidRecordError(`record ${index} has a negative timestamp (${walk.timestamp})`);
      }
      if (walk.timestamp > maxTimestamp) maxTimestamp = walk.timestamp;
      if (
        (bounds.min !== null && walk.timestamp < bounds.min) ||
        (bounds.max !== null && walk.timestamp > bounds.max)
      )
        untimely.push(index);
      if (walk.keyStart < 0) keyless.push(index);
      else if (walk.valueStart < 0) tombstones++;
      checkHeadersEnd(plain, index);
      index++;
    }
  } catch (error) {
    if (error instanceof RecordBatchFormatError) {
      throw new CorruptBatchError(`record ${index} is malformed: ${error.message}`);
    }
    throw error;
  }
  if (index !== header.recordCount) {
    throw new InvalidRecordError(`the batch says ${header.recordCount} records but holds ${index}`);
  }
  if (keyless.length > 0 && config.cleanupPolicy.compact) {
    throw new InvalidBatchRecordsError(
      `record ${keyless[0]} has a null key; a compacted topic needs a key on every record (nothing was appended)`,
      keyless,
    );
  }
  if (untimely.length > 0) {
    const range = `[${bounds.min ?? "-∞"}, ${bounds.max ?? "∞"}]`;
    throw new InvalidTimestampError(
      `record ${untimely[0]}'s timestamp is out of range for this topic: it must be within ${range} (the append time bounded by message.timestamp.before.max.ms / after.max.ms); nothing was appended`,
      untimely,
    );
  }
  if (header.appendTime) {
    maxTimestamp = options.appendTimeMs;
    // The log store's own encoder already stamped it; a client's batch is stamped here.
    if (!isStamped(batch, maxTimestamp)) stampLogAppendTime(batch, maxTimestamp);
  }
  return {
    recordCount: index,
    tombstones,
    maxTimestamp,
    producer: header.producer,
    transactional: header.transactional,
  };
}

function checkHeader(
  batch: Buffer,
  config: TopicConfig,
  options: BatchValidationOptions,
): { recordCount: number; appendTime: boolean; producer: ProducerAppend | null; transactional: boolean } {
  if (batch.length < BATCH_HEADER_BYTES) {
    throw new InvalidRecordError(
      `a record batch needs ${BATCH_HEADER_BYTES} header bytes, got ${batch.length}`,
    );
  }
  const size = batchField.sizeBytes(batch, 0);
  if (size !== batch.length) {
    throw new InvalidRecordError(
      `the batch's length field says ${size} bytes but ${batch.length} were given (exactly one batch per append)`,
    );
  }
  if (batch[OFF_MAGIC] !== MAGIC_V2) throw new InvalidRecordError(`unsupported magic ${batch[OFF_MAGIC]}`);
  if (options.checkSize !== false) checkSize(size, config);
  const attributes = batch.readInt16BE(OFF_ATTRIBUTES);
  const codec = attributes & COMPRESSION_MASK;
  if (compressionName(codec) === null) throw new InvalidRecordError(`unknown compression codec ${codec}`);
  // Markers are the coordinator's to write (PartitionLog.appendTxnMarker), never an append's.
  if ((attributes & CONTROL_FLAG) !== 0) {
    throw new InvalidTxnStateError("control batches are written by the transaction coordinator only");
  }
  if (options.checkCrc && !batchCrcMatches(batch, 0, size)) {
    throw new CorruptBatchError("record batch CRC-32C mismatch");
  }
  const recordCount = batchField.recordCount(batch, 0);
  if (recordCount < 1) throw new InvalidRecordError("an append needs at least one record");
  const lastOffsetDelta = readInt32(batch, OFF_LAST_OFFSET_DELTA);
  if (lastOffsetDelta !== recordCount - 1) {
    throw new InvalidRecordError(
      `lastOffsetDelta ${lastOffsetDelta} does not match ${recordCount} records (it must be the count - 1)`,
    );
  }
  const producer = producerOf(batch, recordCount);
  const transactional = (attributes & TRANSACTIONAL_FLAG) !== 0;
  if (transactional && producer === null) {
    throw new InvalidRecordError("a transactional batch needs a producer id");
  }
  return {
    recordCount,
    appendTime: config.messageTimestampType === "LogAppendTime",
    producer,
    transactional,
  };
}

/** The batch itself when plain, else its inflated copy (the records the walk checks). */
function plainRecords(batch: Buffer): Buffer {
  if ((batch.readInt16BE(OFF_ATTRIBUTES) & COMPRESSION_MASK) === 0) return batch;
  try {
    return inflateBatch(batch, 0);
  } catch (error) {
    if (error instanceof CompressionError)
      throw new CorruptBatchError(`the records do not decompress: ${error.message}`);
    throw error;
  }
}

/**
 * A client's batch is stored as sent only in the codec the topic stores (Kafka's LogValidator
 * keeps a compressed batch as it came when `compression.type` is `producer` or that codec); any
 * other must have its records appended, to be encoded in the topic's codec.
 */
export function checkStoredCodec(batch: Buffer, config: TopicConfig): void {
  const codec = batch.length >= BATCH_HEADER_BYTES ? batch.readInt16BE(OFF_ATTRIBUTES) & COMPRESSION_MASK : 0;
  if (compressionName(codec) === null) throw new InvalidRecordError(`unknown compression codec ${codec}`);
  const stored = storedCodec(config.compressionType, codec);
  if (stored !== codec) {
    throw new InvalidRecordError(
      `a ${compressionName(codec)} batch cannot be stored as sent under compression.type=${config.compressionType}; append its records`,
    );
  }
}

/** The producer fields of the header; a producer id of -1 means none (epoch and sequence ignored). */
function producerOf(batch: Buffer, recordCount: number): ProducerAppend | null {
  const producerId = readInt64(batch, OFF_PRODUCER_ID);
  if (producerId === NO_PRODUCER_ID) return null;
  const producer = {
    producerId,
    producerEpoch: batch.readInt16BE(OFF_PRODUCER_EPOCH),
    baseSequence: readInt32(batch, OFF_BASE_SEQUENCE),
  };
  validateProducerAppend(producer, recordCount);
  return producer;
}

/** Bounds a batch by max.message.bytes and by a whole segment. */
export function checkSize(sizeBytes: number, config: TopicConfig): void {
  if (sizeBytes > config.maxMessageBytes) {
    throw new RecordTooLargeError(
      `batch of ${sizeBytes} bytes exceeds max.message.bytes (${config.maxMessageBytes})`,
    );
  }
  if (sizeBytes > config.segmentBytes) {
    throw new RecordTooLargeError(
      `batch of ${sizeBytes} bytes exceeds segment.bytes (${config.segmentBytes})`,
    );
  }
}

// The headers of the walk's current record must end exactly where the record does: a header
// count that leaves bytes over (or runs past) means the record is not what its lengths say.
function checkHeadersEnd(batch: Buffer, index: number): void {
  let end = walk.headersStart;
  forEachHeader(batch, walk.headersStart, walk.headerCount, walk.recordEnd, (_ns, _ne, _vs, valueEnd) => {
    end = valueEnd;
  });
  if (end !== walk.recordEnd) {
    throw new CorruptBatchError(`record ${index} has ${walk.recordEnd - end} bytes after its headers`);
  }
}

function isStamped(batch: Buffer, appendTimeMs: number): boolean {
  return (
    (batch.readInt16BE(OFF_ATTRIBUTES) & TIMESTAMP_TYPE_FLAG) !== 0 &&
    readInt64(batch, OFF_MAX_TIMESTAMP) === appendTimeMs
  );
}

// Kafka's LogAppendTime: the batch says so in its attributes and carries the append time as its
// max timestamp; both are under the CRC, which is recomputed over the same bytes.
function stampLogAppendTime(batch: Buffer, appendTimeMs: number): void {
  batch.writeInt16BE(batch.readInt16BE(OFF_ATTRIBUTES) | TIMESTAMP_TYPE_FLAG, OFF_ATTRIBUTES);
  writeInt64(batch, appendTimeMs, OFF_MAX_TIMESTAMP);
  batch.writeUInt32BE(crc32c(batch.subarray(OFF_ATTRIBUTES)), OFF_CRC);
}
