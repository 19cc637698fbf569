import { decodeRecordBatch } from "@lastword/dataplane";
import { AppError } from "../errors/app-error";
import { MAX_HEADER_KEY_LENGTH, MAX_HEADERS_PER_RECORD } from "../procedures/records/record.schema";
import { PARTITION_FRAME } from "../rest/record-stream-frames";
import type { DataPlaneProduceRecord } from "./data-plane";
import { keyTooLarge, MAX_KEY_BYTES } from "./key-limit";

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

/**
 * A binary body whose records all share one partition setting (one partition frame, or none),
 * kept as its batch frames: when that settles the partition (it names one, or the topic has one),
 * the frames go to the worker as they are (`DataPlane.produceFrames`), without a record object per
 * record or a copy of their bytes. Everything the records path checks was checked while scanning.
 */
export interface FramesBatch {
  /** The body's batch frames (headers included), as views of the body; adjacent frames joined. */
  frames: Buffer[];
  count: number;
  /** Key, value, header name (characters) and header value bytes: what usage counts, as for records. */
  bytes: number;
  /** The partition every record names, or undefined for the partitioner's choice. */
  partition: number | undefined;
  /** Index of the first record without a key, or -1. */
  firstNullKey: number;
  /** The records, when the partitioner must route them one by one. */
  decode(): ProduceBatch;
}

function malformed(detail: string, at: number): AppError {
  return new AppError("MALFORMED_REQUEST", detail, { details: { at } });
}

function invalid(detail: string, index: number): AppError {
  return new AppError("INVALID_INPUT", detail, { details: { index } });
}

class Overrun extends Error {}

/**
 * Checks a binary produce body with the same limits as the JSON body's schema, without building
 * records: one pass over the lengths. A body with one partition setting is answered as its frames
 * (FramesBatch), any other as its records.
 */
export function decodeProduceFrames(body: Buffer, maxRecords: number): ProduceBatch | FramesBatch {
  const batchFrames: { frame: Buffer; partition: number | undefined }[] = [];
  const joined: Buffer[] = [];
  let joinedStart = -1;
  let joinedEnd = -1;
  let partition: number | undefined;
  let settings = 0;
  let lastSetting: number | undefined | null = null;
  let count = 0;
  let bytes = 0;
  let firstNullKey = -1;
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
    if (lastSetting !== partition) {
      settings++;
      lastSetting = partition;
    }
    let at = pos + FRAME_HEADER_BYTES;
    const need = (n: number) => {
      if (at + n > end) throw new Overrun();
    };
    try {
      while (at < end) {
        const index = count;
        if (index >= maxRecords) throw invalid(`A produce carries at most ${maxRecords} records.`, index);
        need(16);
        const timestamp = body.readDoubleBE(at + 8);
        at += 16;
        if (timestamp !== NO_TIMESTAMP && !(Number.isSafeInteger(timestamp) && timestamp >= 0)) {
          throw invalid(
            `records[${index}].timestamp is ${timestamp}; send whole milliseconds since the epoch, or -1 for the server's time.`,
            index,
          );
        }
        for (let field = 0; field < 2; field++) {
          need(4);
          const length = body.readInt32BE(at);
          at += 4;
          if (length < 0) {
            if (field === 0 && firstNullKey < 0) firstNullKey = index;
            continue;
          }
          if (field === 0 && length > MAX_KEY_BYTES) throw keyTooLarge(length, `records[${index}].key`);
          need(length);
          at += length;
          bytes += length;
        }
        need(2);
        const headers = body.readUInt16BE(at);
        at += 2;
        if (headers > MAX_HEADERS_PER_RECORD) {
          throw invalid(
            `records[${index}] has ${headers} headers; at most ${MAX_HEADERS_PER_RECORD}.`,
            index,
          );
        }
        for (let j = 0; j < headers; j++) {
          need(2);
          const nameBytes = body.readUInt16BE(at);
          at += 2;
          need(nameBytes);
          const name = body.toString("utf8", at, at + nameBytes).length;
          at += nameBytes;
          if (name > MAX_HEADER_KEY_LENGTH) {
            throw invalid(
              `records[${index}].headers[${j}] has a name of ${name} characters; at most ${MAX_HEADER_KEY_LENGTH}.`,
              index,
            );
          }
          need(4);
          const length = body.readInt32BE(at);
          at += 4;
          bytes += name;
          if (length >= 0) {
            need(length);
            at += length;
            bytes += length;
          }
        }
        count++;
      }
    } catch (error) {
      if (!(error instanceof Overrun)) throw error;
      throw malformed(
        `A record in the batch frame at byte ${pos} overruns the frame (a length is wrong).`,
        pos,
      );
    }
    batchFrames.push({ frame: body.subarray(pos, end), partition });
    if (pos === joinedEnd) joined[joined.length - 1] = body.subarray(joinedStart, end);
    else {
      joined.push(body.subarray(pos, end));
      joinedStart = pos;
    }
    joinedEnd = end;
    pos = end;
  }
  if (count === 0) {
    throw new AppError(
      "INVALID_INPUT",
      `The body holds no records; send 1 to ${maxRecords} in batch frames.`,
    );
  }
  const decode = () => decodeScanned(batchFrames);
  if (settings > 1) return decode();
  return { frames: joined, count, bytes, partition: lastSetting ?? undefined, firstNullKey, decode };
}

/** The records of frames `decodeProduceFrames` has checked (views of the body). */
function decodeScanned(frames: readonly { frame: Buffer; partition: number | undefined }[]): ProduceBatch {
  const batch: ProduceBatch = { records: [], partitions: [] };
  for (const { frame, partition } of frames) {
    // Views of the body, not copies: the body is this request's and outlives the records.
    for (const r of decodeRecordBatch([frame], { views: true })) {
      const record: DataPlaneProduceRecord = { key: r.key, value: r.value };
      if (r.timestamp !== NO_TIMESTAMP) record.timestamp = r.timestamp;
      if (r.headers.length > 0) record.headers = r.headers;
      batch.records.push(record);
      batch.partitions.push(partition);
    }
  }
  return batch;
}
