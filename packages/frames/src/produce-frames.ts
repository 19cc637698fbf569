import { decodeBatchFrame, encodeBatchFrames, forEachFrameHeader, readFrameRecord } from "./batch-frames";
import { encodePartitionFrame } from "./control-frames";
import {
  BY_KEY_PARTITION,
  FRAME_HEADER_BYTES,
  FRAME_KIND,
  FrameFormatError,
  NO_TIMESTAMP,
} from "./frame-kinds";
import { emptySpan, type ProduceFrameRecord } from "./frame-records";

// The binary produce body (`FRAMES_CONTENT_TYPE`; layout in frame-kinds.ts): partition and batch
// frames, so a program produces without JSON or base64 (what the JSON route spends most of its time
// on). Records are answered in body order; a cut or unknown frame refuses the whole body before
// anything is written. A batch frame's offsets are ignored, so a replayed batch can be sent as is.

/** A produce body's records, in body order, each with the partition its partition frame named. */
export interface ProduceFrameRecords {
  records: ProduceFrameRecord[];
  /** Per record: the partition it names, or undefined for the partitioner's choice. */
  partitions: (number | undefined)[];
}

/** The limits a produce body is checked against (the JSON body's schema limits, for the REST API). */
export interface ProduceFrameLimits {
  maxRecords: number;
  maxHeadersPerRecord?: number;
  /** In characters, as the JSON schema counts a header key. */
  maxHeaderNameLength?: number;
  /** False: batch frames only (the data plane's record-frames body, whose partition is in its URL). */
  partitionFrames?: boolean;
  /** Largest key in bytes; a larger one is refused with `details.keyBytes` set. */
  maxKeyBytes?: number;
}

/**
 * A checked produce body, kept as its batch frames: when its records share one partition setting
 * (`partitionRuns` ≤ 1) and that settles the partition (it names one, or the topic has one), the
 * frames go to the worker as they are (`DataPlane.produceFrames`), without a record object per
 * record or a copy of their bytes. Everything the records path checks was checked while scanning.
 */
export interface ProduceFrames {
  /** The body's batch frames (headers included), as views of the body; adjacent frames joined. */
  frames: Buffer[];
  count: number;
  /** Key, value, header name (characters) and header value bytes: what usage counts, as for records. */
  bytes: number;
  /** The partition every record names (one setting), or undefined for the partitioner's choice. */
  partition: number | undefined;
  /** How many runs of one partition setting the batch frames make (1: every record shares one). */
  partitionRuns: number;
  /** Index of the first record without a key, or -1. */
  firstNullKey: number;
  /** The records, when the partitioner must route them one by one. */
  decode(): ProduceFrameRecords;
}

function malformed(detail: string, at: number): FrameFormatError {
  return new FrameFormatError(detail, "malformed", { at });
}

function invalid(detail: string, index?: number): FrameFormatError {
  return new FrameFormatError(detail, "invalid", index === undefined ? {} : { index });
}

/** The span the scan reads each record into (positions only; it does not nest). */
const SCAN_SPAN = emptySpan();

/**
 * Checks a binary produce body against `limits` without building records: one pass over the
 * lengths. Throws FrameFormatError ("malformed" with the frame's byte position, "invalid" with
 * the record's index). The one decoder of the body: the REST API checks it here, and the worker
 * decodes the batch frames the web forwards with it.
 */
export function scanProduceFrames(body: Buffer, limits: ProduceFrameLimits): ProduceFrames {
  const { maxRecords } = limits;
  const maxHeaders = limits.maxHeadersPerRecord ?? Number.POSITIVE_INFINITY;
  const maxNameLength = limits.maxHeaderNameLength ?? Number.POSITIVE_INFINITY;
  const maxKeyBytes = limits.maxKeyBytes ?? Number.POSITIVE_INFINITY;
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
    if (kind !== FRAME_KIND.BATCH && kind !== FRAME_KIND.PARTITION) {
      throw malformed(
        `Byte ${pos} starts a frame of unknown kind ${kind}; a produce body holds partition (5) and batch (4) frames only.`,
        pos,
      );
    }
    if (pos + FRAME_HEADER_BYTES > body.length) {
      throw malformed(`The body ends inside the header of the frame at byte ${pos}.`, pos);
    }
    const word = body.readUInt32BE(pos + 1);
    if (kind === FRAME_KIND.PARTITION) {
      if (limits.partitionFrames === false)
        throw malformed(`Byte ${pos} starts a partition frame; only batch frames are taken here.`, pos);
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
    // The record layout is read by the batch-frame reader (batch-frames.ts), the one parser of it;
    // what is checked here is the produce body's own limits, over the positions it answers.
    const r = SCAN_SPAN;
    for (let at = pos + FRAME_HEADER_BYTES; at < end; count++) {
      const index = count;
      if (index >= maxRecords) throw invalid(`A produce carries at most ${maxRecords} records.`, index);
      const next = readFrameRecord(body, at, end, r);
      if (next < 0) {
        throw malformed(
          `A record in the batch frame at byte ${pos} overruns the frame (a length is wrong).`,
          pos,
        );
      }
      at = next;
      const { timestamp } = r;
      if (timestamp !== NO_TIMESTAMP && !(Number.isSafeInteger(timestamp) && timestamp >= 0)) {
        throw invalid(
          `records[${index}].timestamp is ${timestamp}; send whole milliseconds since the epoch, or -1 for the server's time.`,
          index,
        );
      }
      if (r.keyStart < 0) {
        if (firstNullKey < 0) firstNullKey = index;
      } else {
        const keyBytes = r.keyEnd - r.keyStart;
        if (keyBytes > maxKeyBytes) {
          throw new FrameFormatError(
            `records[${index}].key is ${keyBytes} bytes; at most ${maxKeyBytes}.`,
            "invalid",
            {
              index,
              keyBytes,
            },
          );
        }
        bytes += keyBytes;
      }
      if (r.valueStart >= 0) bytes += r.valueEnd - r.valueStart;
      if (r.headerCount > maxHeaders) {
        throw invalid(`records[${index}] has ${r.headerCount} headers; at most ${maxHeaders}.`, index);
      }
      let h = 0;
      forEachFrameHeader(r, (nameStart, nameEnd, valueStart, valueEnd) => {
        const name = body.toString("utf8", nameStart, nameEnd).length;
        if (name > maxNameLength) {
          throw invalid(
            `records[${index}].headers[${h}] has a name of ${name} characters; at most ${maxNameLength}.`,
            index,
          );
        }
        bytes += name + (valueStart < 0 ? 0 : valueEnd - valueStart);
        h++;
      });
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
    throw invalid(`The body holds no records; send 1 to ${maxRecords} in batch frames.`);
  }
  return {
    frames: joined,
    count,
    bytes,
    partition: lastSetting ?? undefined,
    partitionRuns: settings,
    firstNullKey,
    decode: () => decodeScanned(batchFrames),
  };
}

/** The records of frames `decodeProduceFrames` has checked (views of the body). */
function decodeScanned(
  frames: readonly { frame: Buffer; partition: number | undefined }[],
): ProduceFrameRecords {
  const batch: ProduceFrameRecords = { records: [], partitions: [] };
  for (const { frame, partition } of frames) {
    // Views of the body, not copies: the body is this request's and outlives the records.
    for (const r of decodeBatchFrame(frame, true)) {
      const record: ProduceFrameRecord = { key: r.key, value: r.value };
      if (r.timestamp !== NO_TIMESTAMP) record.timestamp = r.timestamp;
      if (r.headers.length > 0) record.headers = r.headers;
      batch.records.push(record);
      batch.partitions.push(partition);
    }
  }
  return batch;
}

/** A record to send in a produce body, with the partition it names (BY_KEY_PARTITION: none). */
export interface ProduceFrameInput {
  partition: number;
  timestamp: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: readonly { key: string; value: Uint8Array | null }[];
}

/**
 * The produce body for `records`: one batch frame per run of records naming the same partition,
 * behind a partition frame whenever the named partition changes. Offsets are written as 0 (the log
 * assigns them). Uint8Array only (the REST client sends it from browsers too).
 */
export function encodeProduceFrames(records: readonly ProduceFrameInput[]): Uint8Array {
  const runs: { start: number; end: number; prefix: Uint8Array | null }[] = [];
  let current = BY_KEY_PARTITION;
  for (let i = 0; i < records.length; i++) {
    const partition = records[i]!.partition;
    const last = runs.at(-1);
    if (last && partition === records[last.start]!.partition) last.end = i + 1;
    else {
      runs.push({
        start: i,
        end: i + 1,
        prefix: partition === current ? null : encodePartitionFrame(partition),
      });
      current = partition;
    }
  }
  return encodeBatchFrames(records, runs);
}
