import { DataPlaneError, isDataPlaneErrorCode } from "./errors";
import type { FetchedRecord, RecordHeader } from "./record-codec";

/**
 * Binary frames of a streamed partition (replay or snapshot), worker → web. JSON with base64 would
 * cost more than the log read itself on a cold start, so records travel as length-prefixed bytes:
 *
 *   record: u8 1 | f64 offset | f64 timestamp | i32 keyLen (-1 = null) | key | i32 valueLen (-1 = tombstone)
 *           | value | u16 headerCount | per header: u16 keyLen | key (UTF-8) | i32 valueLen | value
 *   end:    u8 2 | f64 endOffset (records below it were all considered) | f64 logStartOffset
 *   error:  u8 3 | u32 length | JSON { code, message, retriable }   (a failure after the 200 was sent)
 */
export const STREAM_CONTENT_TYPE = "application/x-lastword-stream";

const RECORD = 1;
const END = 2;
const ERROR = 3;

export type StreamFrame =
  | { kind: "records"; records: FetchedRecord[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };

function recordSize(record: FetchedRecord): number {
  let size = 1 + 8 + 8 + 4 + (record.key?.length ?? 0) + 4 + (record.value?.length ?? 0) + 2;
  for (const h of record.headers) size += 2 + Buffer.byteLength(h.key) + 4 + (h.value?.length ?? 0);
  return size;
}

function writeBytes(out: Buffer, pos: number, bytes: Buffer | null): number {
  if (bytes === null) return out.writeInt32BE(-1, pos);
  pos = out.writeInt32BE(bytes.length, pos);
  out.set(bytes, pos);
  return pos + bytes.length;
}

/** One buffer holding the frames of many records (one socket write per read page). */
export function encodeRecordFrames(records: readonly FetchedRecord[]): Buffer {
  let total = 0;
  for (const r of records) total += recordSize(r);
  const out = Buffer.allocUnsafe(total);
  let pos = 0;
  for (const r of records) {
    pos = out.writeUInt8(RECORD, pos);
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
  const out = Buffer.allocUnsafe(17);
  out.writeUInt8(END, 0);
  out.writeDoubleBE(endOffset, 1);
  out.writeDoubleBE(logStartOffset, 9);
  return out;
}

export function encodeErrorFrame(error: { code: string; message: string; retriable: boolean }): Buffer {
  const json = Buffer.from(JSON.stringify(error));
  const out = Buffer.allocUnsafe(5 + json.length);
  out.writeUInt8(ERROR, 0);
  out.writeUInt32BE(json.length, 1);
  out.set(json, 5);
  return out;
}

class Truncated extends Error {}

class Cursor {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  need(n: number): void {
    if (this.pos + n > this.buf.length) throw new Truncated();
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
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
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
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
    // A copy: the records outlive the network chunk they arrived in.
    const out = Buffer.from(this.buf.subarray(this.pos, this.pos + n));
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

/**
 * Turns the chunks of a stream body into frames; a frame split across chunks waits for the rest.
 * Throws the worker's DataPlaneError for an error frame, and INTERNAL when the body ends mid-frame
 * or without an end frame.
 */
export async function* decodeStreamFrames(chunks: AsyncIterable<Buffer>): AsyncGenerator<StreamFrame> {
  let pending: Buffer = Buffer.alloc(0);
  let ended = false;
  for await (const chunk of chunks) {
    const buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    const cursor = new Cursor(buf);
    const records: FetchedRecord[] = [];
    let start = 0;
    try {
      while (cursor.pos < buf.length) {
        start = cursor.pos;
        const kind = cursor.u8();
        if (kind === RECORD) records.push(readRecord(cursor));
        else if (kind === END) {
          const endOffset = cursor.f64();
          const logStartOffset = cursor.f64();
          if (records.length) yield { kind: "records", records: records.splice(0) };
          ended = true;
          yield { kind: "end", endOffset, logStartOffset };
        } else if (kind === ERROR) throw errorFrame(cursor);
        else throw new DataPlaneError("INTERNAL", `stream frame of unknown kind ${kind}`);
        start = cursor.pos;
      }
    } catch (error) {
      if (!(error instanceof Truncated)) throw error;
    }
    pending = buf.subarray(start);
    if (records.length) yield { kind: "records", records };
  }
  if (pending.length || !ended) throw new DataPlaneError("INTERNAL", "partition stream ended mid-way");
}

function errorFrame(cursor: Cursor): DataPlaneError {
  const json = JSON.parse(cursor.take(cursor.u32()).toString("utf8")) as {
    code: string;
    message: string;
    retriable: boolean;
  };
  const code = isDataPlaneErrorCode(json.code) ? json.code : "INTERNAL";
  return new DataPlaneError(code, json.message, { retriable: json.retriable });
}
