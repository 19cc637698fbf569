import type { ProducerFields } from "@lastword/dataplane";
import { ErrorCode } from "@lastword/kafka-protocol";
import { NO_PRODUCER_ID, storedCodec } from "@lastword/logstore";
import type { TopicConfig } from "@lastword/topic-config";
// The four codecs client batches may come in (the log store installs the same ones).
import "@lastword/record-batch/node-codecs";
import {
  type AppendRecord,
  BATCH_HEADER_BYTES,
  batchCompression,
  batchCrcMatches,
  batchHeaderDefect,
  CONTROL_FLAG,
  decodeBatch,
  LOG_OVERHEAD_BYTES,
  MAGIC_V2,
  OFF_ATTRIBUTES,
  OFF_BASE_SEQUENCE,
  OFF_LENGTH,
  OFF_MAGIC,
  OFF_PRODUCER_EPOCH,
  OFF_PRODUCER_ID,
  readInt64,
  TRANSACTIONAL_FLAG,
} from "@lastword/record-batch";
import type { RequestInflation } from "./produce-inflation";
import { KAFKA_PRODUCER_ID_LIMIT } from "./producers/producer-ids.repository";

export interface BatchRefusal {
  errorCode: number;
  message: string;
  /** Record-level errors (Produce v8+): the record's index in the partition's batch. */
  recordErrors?: { batchIndex: number; batchIndexErrorMessage: string }[];
}

/**
 * What a partition's Produce data becomes: the client's batch itself, appended as sent, or the
 * records of a batch the log cannot store as it came (the topic's `compression.type` names another
 * codec than the batch's), re-encoded by the log with the batch's producer fields so the append
 * stays idempotent, and `codec`, the client's, for the topic's `compression.type` rule.
 */
export type PartitionPayload =
  | { kind: "as-sent"; batch: Buffer; inflated: Buffer | undefined }
  | {
      kind: "re-encoded";
      records: AppendRecord[];
      producer: ProducerFields | undefined;
      codec: number;
      /** A transactional producer's batch: its re-encoded records stay in its transaction. */
      transactional: boolean;
    };

function refuse(errorCode: number, message: string): BatchRefusal {
  return { errorCode, message };
}

/**
 * The one branch point between the two append paths, Kafka's LogValidator's: a batch whose codec
 * is the one the topic stores (`compression.type` = `producer` or that codec, `uncompressed` for a
 * plain batch) is stored exactly as the client sent it — the log store validates it in place (a
 * compressed one by walking its inflated records) and writes its base offset; any other is decoded
 * here and its records appended, to be encoded by the log store in the topic's codec.
 */
export function appendsAsSent(batch: Buffer, config: TopicConfig): boolean {
  const codec = batchCompression(batch, 0);
  return storedCodec(config.compressionType, codec) === codec;
}

/** Where the magic byte sits in a RecordBatch v2 and in a v0/v1 message set's first message alike. */
const MAGIC_PROBE_BYTES = OFF_MAGIC + 1;

/**
 * Produce v3+ must carry RecordBatch v2 (Kafka's ProduceRequest.validateRecords: INVALID_RECORD).
 * v0–v2 may carry the older message sets (magic 0 and 1), which this broker does not store: they
 * are refused as a message format it does not support, with nothing appended.
 */
function magicRefusal(data: Buffer, version: number): BatchRefusal | null {
  const magic = data.readInt8(OFF_MAGIC);
  if (magic === MAGIC_V2) return null;
  if (version >= 3) {
    return refuse(
      ErrorCode.INVALID_RECORD,
      `Produce requests with version ${version} are only allowed to contain record batches with magic version 2`,
    );
  }
  return refuse(
    ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
    `message format with magic ${magic} is not supported: this broker stores RecordBatch v2 (magic 2) only`,
  );
}

/**
 * Reads one partition's Produce data far enough to choose its append path: one whole RecordBatch
 * v2 (Kafka requires exactly one from Produce v3; v0–v2 are held to the same here), whose producer
 * id, if any, must be one InitProducerId issued. Everything about the records themselves (CRC,
 * sizes, keys) is checked by the log store, for both paths; a batch to re-encode has its CRC and
 * size checked here first, since only the bytes as sent carry them. Before either, `inflation`
 * holds the batch to the tenant's limits, inflating a compressed one in the pool (bounded): the
 * plain copy goes along, so nothing inflates it again on the event loop.
 */
export async function partitionPayload(
  data: Buffer | null,
  config: TopicConfig,
  version: number,
  inflation: RequestInflation,
  /** The request names a transactional id: its batch must be transactional, else it must not be. */
  transactional = false,
): Promise<PartitionPayload | BatchRefusal> {
  if (data === null || data.length === 0)
    return refuse(ErrorCode.INVALID_RECORD, "the produce request holds no records");
  if (data.length < MAGIC_PROBE_BYTES)
    return refuse(ErrorCode.CORRUPT_MESSAGE, "a record batch is cut short");
  const wrongMagic = magicRefusal(data, version);
  if (wrongMagic) return wrongMagic;
  if (data.length < BATCH_HEADER_BYTES)
    return refuse(ErrorCode.CORRUPT_MESSAGE, "a record batch is cut short");
  const defect = batchHeaderDefect(data, 0);
  if (defect?.startsWith("unknown compression codec"))
    return refuse(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `invalid record batch: ${defect}`);
  if (defect) return refuse(ErrorCode.CORRUPT_MESSAGE, `invalid record batch: ${defect}`);
  const size = data.readInt32BE(OFF_LENGTH) + LOG_OVERHEAD_BYTES;
  if (size > data.length) return refuse(ErrorCode.CORRUPT_MESSAGE, "a record batch is cut short");
  if (size < data.length) {
    return refuse(
      ErrorCode.INVALID_RECORD,
      `Produce requests carry exactly one record batch per partition (Kafka requires it from v3; this broker from v0), got more in ${data.length} bytes`,
    );
  }
  const attributes = data.readInt16BE(OFF_ATTRIBUTES);
  if ((attributes & CONTROL_FLAG) !== 0) {
    return refuse(
      ErrorCode.INVALID_RECORD,
      "control batches are written by the transaction coordinator only",
    );
  }
  if (((attributes & TRANSACTIONAL_FLAG) !== 0) !== transactional) {
    return refuse(
      ErrorCode.INVALID_RECORD,
      transactional
        ? "a Produce with a transactional id must carry a transactional record batch"
        : "a transactional record batch needs the Produce request's transactional id",
    );
  }
  const producerId = readInt64(data, OFF_PRODUCER_ID);
  if (producerId !== NO_PRODUCER_ID && (producerId < 0 || producerId >= KAFKA_PRODUCER_ID_LIMIT)) {
    return refuse(
      ErrorCode.UNKNOWN_PRODUCER_ID,
      `producer id ${producerId} was not issued by InitProducerId`,
    );
  }
  // Stored as sent, the batch's values are never read on the event loop: only its skeleton comes back.
  const asSent = appendsAsSent(data, config);
  const inspected = await inflation.inspect(data, !asSent);
  if ("errorCode" in inspected) return inspected;
  if (asSent) return { kind: "as-sent", batch: data, inflated: inspected.plain ?? undefined };
  const records = decodedRecords(data, config, inspected.plain ?? data);
  if (!Array.isArray(records)) return records;
  const producer =
    producerId === NO_PRODUCER_ID
      ? undefined
      : {
          producerId,
          producerEpoch: data.readInt16BE(OFF_PRODUCER_EPOCH),
          baseSequence: data.readInt32BE(OFF_BASE_SEQUENCE),
        };
  // `transactional` is the batch's own attribute too (checked above).
  return { kind: "re-encoded", records, producer, codec: batchCompression(data, 0), transactional };
}

/** The records of `data` (as sent) from `plain`, its inflated copy (or itself when plain). */
function decodedRecords(data: Buffer, config: TopicConfig, plain: Buffer): AppendRecord[] | BatchRefusal {
  if (data.length > config.maxMessageBytes) {
    return refuse(
      ErrorCode.MESSAGE_TOO_LARGE,
      `the record batch is ${data.length} bytes, larger than max.message.bytes (${config.maxMessageBytes})`,
    );
  }
  if (!batchCrcMatches(data, 0, data.length))
    return refuse(ErrorCode.CORRUPT_MESSAGE, "record batch CRC-32C mismatch");
  const attributes = data.readInt16BE(OFF_ATTRIBUTES);
  // Markers are the transaction coordinator's to write; a transactional data batch needs its
  // producer (the log store checks both for batches appended as sent).
  if ((attributes & CONTROL_FLAG) !== 0) {
    return refuse(
      ErrorCode.INVALID_RECORD,
      "control batches are written by the transaction coordinator only",
    );
  }
  if ((attributes & TRANSACTIONAL_FLAG) !== 0 && readInt64(data, OFF_PRODUCER_ID) === NO_PRODUCER_ID) {
    return refuse(ErrorCode.INVALID_RECORD, "a transactional batch needs a producer id");
  }
  try {
    const { header, records } = decodeBatch(plain, 0);
    if (records.length !== header.recordCount) {
      return refuse(
        ErrorCode.CORRUPT_MESSAGE,
        `batch says ${header.recordCount} records but holds ${records.length}`,
      );
    }
    return records.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp, headers: r.headers }));
  } catch (error) {
    return refuse(ErrorCode.CORRUPT_MESSAGE, `malformed records: ${(error as Error).message}`);
  }
}
