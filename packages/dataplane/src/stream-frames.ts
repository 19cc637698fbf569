import {
  batchesBefore,
  forEachHeader,
  RecordBatchFormatError,
  RecordBatchWalk,
} from "@lastword/record-batch";
import { DataPlaneError, isDataPlaneErrorCode } from "./errors";
import type { FetchedRecord, RecordHeader } from "./record-codec";

/**
 * Binary frames of a streamed partition (replay or snapshot), worker → web. JSON with base64 would
 * cost more than the log read itself on a cold start, so records travel as length-prefixed bytes,
 * one batch frame per page the worker read. The batch carries its byte length so the web can pass
 * it on to a binary REST client without looking at a single record (`splitStreamFrames`):
 *
 *   batch:  u8 4 | u32 byteLength | records, each:
 *             f64 offset | f64 timestamp | i32 keyLen (-1 = null) | key | i32 valueLen (-1 = tombstone)
 *             | value | u16 headerCount | per header: u16 keyLen | key (UTF-8) | i32 valueLen | value
 *   stored: u8 7 | u32 byteLength | f64 fromOffset | f64 endOffset | i32 keepCount | keepCount × f64 offset
 *             | Kafka RecordBatch v2 batches, uncompressed, byte for byte as the log stores them
 *           The records meant are those with fromOffset ≤ offset < endOffset (the first batch may start
 *           below the offset asked for, the last run past the stream's end), and when keepCount ≥ 0
 *           only those whose offset is listed (ascending; a snapshot's latest records); -1 = no list.
 *   end:    u8 2 | f64 endOffset (records below it were all considered) | f64 logStartOffset
 *   error:  u8 3 | u32 length | JSON { code, message, retriable }   (a failure after the 200 was sent)
 *
 * Big-endian. The REST binary stream (`application/vnd.lastword.frames`) reuses the batch and the
 * stored frames as they are. A stored frame costs the worker no per-record work: the log store
 * checked each batch's CRC when it read it, and the batches go out as read.
 */
export const STREAM_CONTENT_TYPE = "application/x-lastword-stream";

const BATCH = 4;
const END = 2;
const ERROR = 3;
const STORED = 7;
const BATCH_HEADER_BYTES = 5;
const END_BYTES = 17;
/** What a stored frame holds before its keep list: f64 from | f64 end | i32 keepCount. */
const STORED_HEAD_BYTES = 20;

export type StreamFrame =
  | { kind: "records"; records: FetchedRecord[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };

/** A stream cut at frame boundaries without decoding records: whole batch frames (in parts), then the end. */
export type StreamPiece =
  | { kind: "batch"; parts: Buffer[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };

function recordSize(record: FetchedRecord): number {
  let size = 8 + 8 + 4 + (record.key?.length ?? 0) + 4 + (record.value?.length ?? 0) + 2;
  for (const h of record.headers) size += 2 + Buffer.byteLength(h.key) + 4 + (h.value?.length ?? 0);
  return size;
}

function writeBytes(out: Buffer, pos: number, bytes: Buffer | null): number {
  if (bytes === null) return out.writeInt32BE(-1, pos);
  pos = out.writeInt32BE(bytes.length, pos);
  out.set(bytes, pos);
  return pos + bytes.length;
}

/** One batch frame holding many records (one socket write per read page). */
export function encodeRecordFrames(records: readonly FetchedRecord[]): Buffer {
  let total = BATCH_HEADER_BYTES;
  for (const r of records) total += recordSize(r);
  const out = Buffer.allocUnsafe(total);
  let pos = out.writeUInt8(BATCH, 0);
  pos = out.writeUInt32BE(total - BATCH_HEADER_BYTES, pos);
  for (const r of records) {
    pos = out.writeDoubleBE(r.offset, pos);
    pos = out.writeDoubleBE(r.timestamp, pos);
    pos = writeBytes(out, pos, r.key);
    pos = writeBytes(out, pos, r.value);
    pos = out.writeUInt16BE(r.headers.length, pos);
    for (const h of r.headers) {
      const key = Buffer.from(h.key);
      pos = out.writeUInt16BE(key.length, pos);
      out.set(key, pos);
      pos = writeBytes(out, pos + key.length, h.value);
    }
  }
  return out;
}

export function encodeEndFrame(endOffset: number, logStartOffset: number): Buffer {
  const out = Buffer.allocUnsafe(END_BYTES);
  out.writeUInt8(END, 0);
  out.writeDoubleBE(endOffset, 1);
  out.writeDoubleBE(logStartOffset, 9);
  return out;
}

/** The worker's `{ code, message, retriable }`, or (REST binary stream) the API's problem document. */
export function encodeErrorFrame(error: object): Buffer {
  const json = Buffer.from(JSON.stringify(error));
  const out = Buffer.allocUnsafe(5 + json.length);
  out.writeUInt8(ERROR, 0);
  out.writeUInt32BE(json.length, 1);
  out.set(json, 5);
  return out;
}

function errorOf(json: Buffer): DataPlaneError {
  const body = JSON.parse(json.toString("utf8")) as { code: string; message: string; retriable: boolean };
  const code = isDataPlaneErrorCode(body.code) ? body.code : "INTERNAL";
  return new DataPlaneError(code, body.message, { retriable: body.retriable });
}

/**
 * Cuts the chunks of a stream body at frame boundaries, touching only frame headers (a few per
 * megabyte): batch frames come out whole (as views of the chunks they arrived in, no copy), so
 * whoever forwards them never sends half a frame before an error. Throws the worker's
 * DataPlaneError for an error frame, and INTERNAL when the body ends mid-frame or without an end.
 */
export async function* splitStreamFrames(chunks: AsyncIterable<Buffer>): AsyncGenerator<StreamPiece> {
  const parts: Buffer[] = [];
  /** Bytes of the current frame still to come; its header is collected in `head` first. */
  let remaining = 0;
  let head: Buffer = Buffer.alloc(0);
  let ended = false;
  const source = chunks[Symbol.asyncIterator]();
  try {
    for (let next = await source.next(); !next.done; next = await source.next()) {
      const chunk = next.value;
      let pos = 0;
      while (pos < chunk.length) {
        if (ended) throw new DataPlaneError("INTERNAL", "bytes after a partition stream's end frame");
        if (remaining > 0) {
          // Inside a batch body: take what this chunk has of it.
          const n = Math.min(remaining, chunk.length - pos);
          parts.push(chunk.subarray(pos, pos + n));
          pos += n;
          remaining -= n;
          if (remaining === 0) yield { kind: "batch", parts: parts.splice(0) };
          continue;
        }
        const kind = head.length ? head[0] : chunk[pos];
        const headerBytes = kind === END ? END_BYTES : BATCH_HEADER_BYTES;
        if (kind !== BATCH && kind !== STORED && kind !== END && kind !== ERROR) {
          throw new DataPlaneError("INTERNAL", `stream frame of unknown kind ${kind}`);
        }
        // A header split across chunks is gathered (a few bytes) before the frame is read.
        const take = Math.min(headerBytes - head.length, chunk.length - pos);
        head = Buffer.concat([head, chunk.subarray(pos, pos + take)]);
        pos += take;
        if (head.length < headerBytes) continue;
        if (kind === END) {
          ended = true;
          yield { kind: "end", endOffset: head.readDoubleBE(1), logStartOffset: head.readDoubleBE(9) };
        } else if (kind === ERROR) {
          // Rare and small: gather the JSON across chunks, then throw it.
          const length = head.readUInt32BE(1);
          let json = chunk.subarray(pos, pos + length);
          pos += json.length;
          if (json.length < length) {
            const rest: Buffer[] = [json];
            let have = json.length;
            while (have < length) {
              const more = await source.next();
              if (more.done) break;
              rest.push(more.value);
              have += more.value.length;
            }
            json = Buffer.concat(rest).subarray(0, length);
            if (json.length < length) break;
          }
          throw errorOf(json);
        } else {
          remaining = head.readUInt32BE(1);
          parts.push(head);
          if (remaining === 0) yield { kind: "batch", parts: parts.splice(0) };
        }
        head = Buffer.alloc(0);
      }
    }
  } finally {
    // Leaving early (the consumer stopped, or an error frame) ends the body's reading too.
    await source.return?.();
  }
  if (remaining > 0 || head.length || !ended) {
    throw new DataPlaneError("INTERNAL", "partition stream ended mid-way");
  }
}

class Truncated extends Error {}

class Cursor {
  pos: number;
  readonly end: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    end: number,
    readonly views = false,
  ) {
    this.pos = start;
    this.end = end;
  }
  need(n: number): void {
    if (this.pos + n > this.end) throw new Truncated();
  }
  f64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }
  i32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  take(n: number): Buffer {
    this.need(n);
    // A copy unless asked for views: records usually outlive the network chunk they arrived in.
    const view = this.buf.subarray(this.pos, this.pos + n);
    const out = this.views ? view : Buffer.from(view);
    this.pos += n;
    return out;
  }
  bytes(): Buffer | null {
    const n = this.i32();
    return n < 0 ? null : this.take(n);
  }
}

function readRecord(c: Cursor): FetchedRecord {
  const offset = c.f64();
  const timestamp = c.f64();
  const key = c.bytes();
  const value = c.bytes();
  const headers: RecordHeader[] = [];
  for (let n = c.u16(); n > 0; n--) {
    const name = c.take(c.u16()).toString("utf8");
    headers.push({ key: name, value: c.bytes() });
  }
  return { offset, timestamp, key, value, headers };
}

export interface DecodeBatchOptions {
  /**
   * Keys, values and header values as views of the frame's bytes instead of copies: for a caller
   * that owns those bytes for as long as it keeps the records (a request body it decoded whole).
   * Views of socket chunks would pin them, and of a reused buffer would change under the caller.
   */
  views?: boolean;
}

/**
 * The records of one whole batch or stored frame (header included, as `splitStreamFrames` gives
 * it). A stored frame's records are views of one copy of the frame (whatever `views` says).
 */
export function decodeRecordBatch(
  parts: readonly Buffer[],
  options: DecodeBatchOptions = {},
): FetchedRecord[] {
  if (parts[0]?.[0] === STORED) {
    const copy = parts.length === 1 && !options.views ? Buffer.from(parts[0]) : Buffer.concat(parts);
    return decodeStoredFrame(copy);
  }
  const frame = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  const cursor = new Cursor(frame, BATCH_HEADER_BYTES, frame.length, options.views === true);
  const records: FetchedRecord[] = [];
  try {
    while (cursor.pos < frame.length) records.push(readRecord(cursor));
  } catch (error) {
    if (error instanceof Truncated) throw new DataPlaneError("INTERNAL", "a record overruns its batch frame");
    throw error;
  }
  return records;
}

/** The stream's frames with their records decoded (what a reader that needs each record uses). */
export async function* decodeStreamFrames(chunks: AsyncIterable<Buffer>): AsyncGenerator<StreamFrame> {
  for await (const piece of splitStreamFrames(chunks)) {
    if (piece.kind === "end") yield piece;
    else yield { kind: "records", records: decodeRecordBatch(piece.parts) };
  }
}

/** The stored frame's head (its batches are written after it, as they are: no copy of them). */
export function encodeStoredHead(
  batchBytes: number,
  fromOffset: number,
  endOffset: number,
  keep: ArrayLike<number> | null,
): Buffer {
  const keepCount = keep?.length ?? 0;
  const out = Buffer.allocUnsafe(BATCH_HEADER_BYTES + STORED_HEAD_BYTES + keepCount * 8);
  out[0] = STORED;
  out.writeUInt32BE(STORED_HEAD_BYTES + keepCount * 8 + batchBytes, 1);
  out.writeDoubleBE(fromOffset, 5);
  out.writeDoubleBE(endOffset, 13);
  out.writeInt32BE(keep ? keepCount : -1, 21);
  for (let i = 0, at = 25; i < keepCount; i++, at += 8) out.writeDoubleBE(keep![i]!, at);
  return out;
}

/**
 * The part of a log read (`readBatches`) to send for a stream ending at `endOffset`: the bytes of
 * the batches starting below it, the offset after the last of them, and their record count.
 */
export const storedBatchesBefore = batchesBefore;

/**
 * The records a stored frame means (`frame` is the whole frame, header included, and owned: the
 * records' bytes are views of it). Lengths are checked against the frame; CRCs are not (the worker's
 * log store checked them on read).
 */
export function decodeStoredFrame(frame: Buffer): FetchedRecord[] {
  const records: FetchedRecord[] = [];
  try {
    const c = new Cursor(frame, BATCH_HEADER_BYTES, frame.length);
    const from = c.f64();
    const end = c.f64();
    const keepCount = c.i32();
    const keepAt = c.pos;
    if (keepCount > 0) c.need(keepCount * 8);
    let k = 0;
    const walk = new RecordBatchWalk().reset(frame, keepAt + Math.max(keepCount, 0) * 8, frame.length);
    const bytes = (start: number, end: number) => (start < 0 ? null : frame.subarray(start, end));
    while (walk.nextBatch()) {
      while (walk.nextRecord()) {
        const offset = walk.offset;
        let wanted = offset >= from && offset < end;
        if (wanted && keepCount >= 0) {
          while (k < keepCount && frame.readDoubleBE(keepAt + k * 8) < offset) k++;
          wanted = k < keepCount && frame.readDoubleBE(keepAt + k * 8) === offset;
        }
        if (!wanted) continue;
        const headers: RecordHeader[] = [];
        forEachHeader(frame, walk.headersStart, walk.headerCount, walk.recordEnd, (ns, ne, vs, ve) => {
          headers.push({ key: frame.toString("utf8", ns, ne), value: bytes(vs, ve) });
        });
        records.push({
          offset,
          timestamp: walk.timestamp,
          key: bytes(walk.keyStart, walk.keyEnd),
          value: bytes(walk.valueStart, walk.valueEnd),
          headers,
        });
      }
    }
  } catch (error) {
    if (error instanceof Truncated)
      throw new DataPlaneError("INTERNAL", "a record overruns its stored frame");
    if (error instanceof RecordBatchFormatError) {
      throw new DataPlaneError("INTERNAL", `a stored frame holds ${error.message}`);
    }
    throw error;
  }
  return records;
}
