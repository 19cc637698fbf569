import { DataPlaneError, decodeRecordBatch } from "@lastword/dataplane";
import { AppError } from "../errors/app-error";
import { MAX_HEADER_KEY_LENGTH, MAX_HEADERS_PER_RECORD } from "../procedures/records/record.schema";
import { PARTITION_FRAME } from "../rest/record-stream-frames";
import type { DataPlaneProduceRecord } from "./data-plane";

/**
 * The binary produce body (`Content-Type: application/vnd.lastword.frames`): the streaming routes'
 * frames, read the other way, so a program produces without JSON or base64 (what the JSON route
 * spends most of its time on). Big-endian:
 *
 *   partition: u8 5 | u32 partition      the records of the batch frames that follow go to it;
 *                                        0xFFFFFFFF = back to the default (Kafka's key hash)
 *   batch:     u8 4 | u32 byteLength | records, each (the stream's record layout):
 *                f64 offset (ignored: the log assigns offsets, so a replayed batch can be sent as is)
 *                | f64 timestamp (ms since the epoch; -1 = the server's time)
 *                | i32 keyLen (-1 = null key) | key | i32 valueLen (-1 = tombstone) | value
 *                | u16 headerCount | per header: u16 nameLen | name (UTF-8) | i32 valueLen (-1 = null) | value
 *
 * Records are answered in body order. Nothing else may appear; a cut or unknown frame refuses the
 * whole batch before anything is written.
 */
/** In a partition frame: the records that follow are routed by key, as when no partition is named. */
export const BY_KEY_PARTITION = 0xffffffff;
const BATCH_FRAME = 4;
const FRAME_HEADER_BYTES = 5;
/** The timestamp meaning "none given" (the server stamps the record). */
export const NO_TIMESTAMP = -1;

export interface ProduceBatch {
  records: DataPlaneProduceRecord[];
  /** Per record: the partition it names, or undefined for the partitioner's choice. */
  partitions: (number | undefined)[];
}

function malformed(detail: string, at: number): AppError {
  return new AppError("MALFORMED_REQUEST", detail, { details: { at } });
}

function invalid(detail: string, index: number): AppError {
  return new AppError("INVALID_INPUT", detail, { details: { index } });
}

/** The records of a binary produce body, with the same limits as the JSON body's schema. */
export function decodeProduceFrames(body: Buffer, maxRecords: number): ProduceBatch {
  const batch: ProduceBatch = { records: [], partitions: [] };
  let partition: number | undefined;
  let pos = 0;
  while (pos < body.length) {
    const kind = body[pos]!;
    if (kind !== BATCH_FRAME && kind !== PARTITION_FRAME) {
      throw malformed(
        `Byte ${pos} starts a frame of unknown kind ${kind}; a produce body holds partition (5) and batch (4) frames only.`,
        pos,
      );
    }
    if (pos + FRAME_HEADER_BYTES > body.length) {
      throw malformed(`The body ends inside the header of the frame at byte ${pos}.`, pos);
    }
    const word = body.readUInt32BE(pos + 1);
    if (kind === PARTITION_FRAME) {
      partition = word === BY_KEY_PARTITION ? undefined : word;
      pos += FRAME_HEADER_BYTES;
      continue;
    }
    const end = pos + FRAME_HEADER_BYTES + word;
    if (end > body.length) {
      throw malformed(
        `The batch frame at byte ${pos} declares ${word} bytes but the body holds ${body.length - pos - FRAME_HEADER_BYTES} after its header.`,
        pos,
      );
    }
    let records: ReturnType<typeof decodeRecordBatch>;
    try {
      // Views of the body, not copies: the body is this request's and outlives the records.
      records = decodeRecordBatch([body.subarray(pos, end)], { views: true });
    } catch (error) {
      if (!(error instanceof DataPlaneError)) throw error;
      throw malformed(
        `A record in the batch frame at byte ${pos} overruns the frame (a length is wrong).`,
        pos,
      );
    }
    for (const r of records) {
      const index = batch.records.length;
      if (index >= maxRecords) throw invalid(`A produce carries at most ${maxRecords} records.`, index);
      const record: DataPlaneProduceRecord = { key: r.key, value: r.value };
      if (r.timestamp !== NO_TIMESTAMP) {
        if (!Number.isSafeInteger(r.timestamp) || r.timestamp < 0) {
          throw invalid(
            `records[${index}].timestamp is ${r.timestamp}; send whole milliseconds since the epoch, or -1 for the server's time.`,
            index,
          );
        }
        record.timestamp = r.timestamp;
      }
      if (r.headers.length > MAX_HEADERS_PER_RECORD) {
        throw invalid(
          `records[${index}] has ${r.headers.length} headers; at most ${MAX_HEADERS_PER_RECORD}.`,
          index,
        );
      }
      for (const [j, h] of r.headers.entries()) {
        if (h.key.length > MAX_HEADER_KEY_LENGTH) {
          throw invalid(
            `records[${index}].headers[${j}] has a name of ${h.key.length} characters; at most ${MAX_HEADER_KEY_LENGTH}.`,
            index,
          );
        }
      }
      if (r.headers.length > 0) record.headers = r.headers;
      batch.records.push(record);
      batch.partitions.push(partition);
    }
    pos = end;
  }
  if (batch.records.length === 0) {
    throw new AppError(
      "INVALID_INPUT",
      `The body holds no records; send 1 to ${maxRecords} in batch frames.`,
    );
  }
  return batch;
}
