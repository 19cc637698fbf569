import { gunzipSync } from "node:zlib";
import { ErrorCode } from "@lastword/kafka-protocol";
import type { TopicConfig } from "@lastword/logstore";
import {
  type AppendRecord,
  BATCH_HEADER_BYTES,
  batchCrcMatches,
  batchHeaderDefect,
  COMPRESSION_MASK,
  CONTROL_FLAG,
  decodeBatch,
  LOG_OVERHEAD_BYTES,
  OFF_ATTRIBUTES,
  OFF_LENGTH,
  TRANSACTIONAL_FLAG,
} from "@lastword/record-batch";

const GZIP = 1;
const TRANSACTIONAL_OR_CONTROL = TRANSACTIONAL_FLAG | CONTROL_FLAG;
/** Largest records section a gzip batch may inflate to: what a fetch could ever serve whole. */
const MAX_INFLATED_BYTES = 64 << 20;

export interface BatchRefusal {
  errorCode: number;
  message: string;
  /** Record-level errors (Produce v8+): the record's index in the partition's batch. */
  recordErrors?: { batchIndex: number; batchIndexErrorMessage: string }[];
}

function refuse(errorCode: number, message: string): BatchRefusal {
  return { errorCode, message };
}

// A gzip batch becomes the same batch uncompressed, so one record walk serves both codecs.
function inflated(buf: Buffer, pos: number, size: number): Buffer | BatchRefusal {
  let records: Buffer;
  try {
    records = gunzipSync(buf.subarray(pos + BATCH_HEADER_BYTES, pos + size), {
      maxOutputLength: MAX_INFLATED_BYTES,
    });
  } catch (error) {
    return refuse(
      ErrorCode.CORRUPT_MESSAGE,
      `gzip records section does not inflate: ${(error as Error).message}`,
    );
  }
  const out = Buffer.allocUnsafe(BATCH_HEADER_BYTES + records.length);
  buf.copy(out, 0, pos, pos + BATCH_HEADER_BYTES);
  records.copy(out, BATCH_HEADER_BYTES);
  out.writeInt32BE(out.length - LOG_OVERHEAD_BYTES, OFF_LENGTH);
  out.writeInt16BE(out.readInt16BE(OFF_ATTRIBUTES) & ~COMPRESSION_MASK, OFF_ATTRIBUTES);
  return out;
}

function recordsOf(buf: Buffer, pos: number, size: number): AppendRecord[] | BatchRefusal {
  const attributes = buf.readInt16BE(pos + OFF_ATTRIBUTES);
  if ((attributes & TRANSACTIONAL_OR_CONTROL) !== 0) {
    return refuse(ErrorCode.INVALID_RECORD, "transactional and control batches are not supported");
  }
  const codec = attributes & COMPRESSION_MASK;
  if (codec !== 0 && codec !== GZIP) {
    return refuse(
      ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      `compression codec ${codec} is not supported (gzip or none)`,
    );
  }
  const plain = codec === GZIP ? inflated(buf, pos, size) : buf.subarray(pos, pos + size);
  if (!Buffer.isBuffer(plain)) return plain;
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
    if (defect && !defect.startsWith("compressed"))
      return refuse(ErrorCode.CORRUPT_MESSAGE, `invalid record batch: ${defect}`);
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
    const records = recordsOf(data, pos, size);
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
