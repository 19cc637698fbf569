import { ErrorCode } from "@lastword/kafka-protocol";
// The four codecs client batches may come in (the log store installs the same ones).
import "@lastword/record-batch/node-codecs";
import type { TopicConfig } from "@lastword/logstore";
import {
  type AppendRecord,
  BATCH_HEADER_BYTES,
  batchCompression,
  batchCrcMatches,
  batchHeaderDefect,
  CONTROL_FLAG,
  CompressionError,
  compressionName,
  decodeBatch,
  inflateBatch,
  LOG_OVERHEAD_BYTES,
  OFF_ATTRIBUTES,
  OFF_LENGTH,
  TRANSACTIONAL_FLAG,
} from "@lastword/record-batch";

const TRANSACTIONAL_OR_CONTROL = TRANSACTIONAL_FLAG | CONTROL_FLAG;

export interface BatchRefusal {
  errorCode: number;
  message: string;
  /** Record-level errors (Produce v8+): the record's index in the partition's batch. */
  recordErrors?: { batchIndex: number; batchIndexErrorMessage: string }[];
}

function refuse(errorCode: number, message: string): BatchRefusal {
  return { errorCode, message };
}

/**
 * The codec the client's batches came with, for the log's `compression.type` rule (Kafka's
 * LogValidator takes the source codec from the batches): the last compressed one's, else none.
 * The stored batch is then the client's records under that codec, or under the topic's.
 */
export function clientCodec(data: Buffer): number {
  let codec = 0;
  for (let pos = 0; pos + BATCH_HEADER_BYTES <= data.length; ) {
    codec = batchCompression(data, pos) || codec;
    pos += data.readInt32BE(pos + OFF_LENGTH) + LOG_OVERHEAD_BYTES;
  }
  return codec;
}

function recordsOf(buf: Buffer, pos: number): AppendRecord[] | BatchRefusal {
  const attributes = buf.readInt16BE(pos + OFF_ATTRIBUTES);
  if ((attributes & TRANSACTIONAL_OR_CONTROL) !== 0) {
    return refuse(ErrorCode.INVALID_RECORD, "transactional and control batches are not supported");
  }
  let plain: Buffer;
  try {
    // A compressed batch becomes the same batch plain, so one record walk serves every codec.
    plain = inflateBatch(buf, pos);
  } catch (error) {
    if (!(error instanceof CompressionError)) throw error;
    const known = compressionName(batchCompression(buf, pos)) !== null;
    return refuse(known ? ErrorCode.CORRUPT_MESSAGE : ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, error.message);
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

/**
 * The records of one partition's Produce data, checked as Kafka's LogValidator checks them before
 * anything is appended: whole v2 batches, CRC-32C, sizes against `max.message.bytes`, a key on
 * every record of a compacted topic. One refusal refuses the partition's whole request.
 */
export function produceRecords(
  data: Buffer | null,
  config: TopicConfig,
  where: string,
): AppendRecord[] | BatchRefusal {
  if (data === null || data.length === 0)
    return refuse(ErrorCode.INVALID_RECORD, "the produce request holds no records");
  const out: AppendRecord[] = [];
  for (let pos = 0; pos < data.length; ) {
    if (data.length - pos < BATCH_HEADER_BYTES)
      return refuse(ErrorCode.CORRUPT_MESSAGE, "a record batch is cut short");
    const defect = batchHeaderDefect(data, pos);
    if (defect?.startsWith("unknown compression codec"))
      return refuse(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `invalid record batch: ${defect}`);
    if (defect) return refuse(ErrorCode.CORRUPT_MESSAGE, `invalid record batch: ${defect}`);
    const size = data.readInt32BE(pos + OFF_LENGTH) + LOG_OVERHEAD_BYTES;
    if (size > data.length - pos) return refuse(ErrorCode.CORRUPT_MESSAGE, "a record batch is cut short");
    if (size > config.maxMessageBytes) {
      return refuse(
        ErrorCode.MESSAGE_TOO_LARGE,
        `the record batch is ${size} bytes, larger than max.message.bytes (${config.maxMessageBytes})`,
      );
    }
    if (!batchCrcMatches(data, pos, size))
      return refuse(ErrorCode.CORRUPT_MESSAGE, "record batch CRC-32C mismatch");
    const records = recordsOf(data, pos);
    if (!Array.isArray(records)) return records;
    for (const record of records) out.push(record);
    pos += size;
  }
  return config.cleanupPolicy.compact ? keyedOrRefused(out, where) : out;
}

function keyedOrRefused(records: AppendRecord[], where: string): AppendRecord[] | BatchRefusal {
  const keyless = records.flatMap((r, i) => (r.key === null ? [i] : []));
  if (keyless.length === 0) return records;
  // Kafka's own wording (LogValidator.validateKey), so clients' logs read the same.
  const message = `Compacted topic cannot accept message without key in topic partition ${where}.`;
  return {
    errorCode: ErrorCode.INVALID_RECORD,
    message,
    recordErrors: keyless.map((batchIndex) => ({ batchIndex, batchIndexErrorMessage: message })),
  };
}
