import type { Envelope, Problem } from "@lastword/api";
import { forEachHeader, RecordBatchWalk } from "@lastword/record-batch";
import { LastwordApiError } from "./problem-error";

/**
 * Reader of the streaming routes' binary answer (`Accept: application/vnd.lastword.frames`; the
 * format is described in packages/api/src/rest/record-stream-frames.ts and the API README):
 * partition frames, batch frames of length-prefixed records, the offsets frame last, or an error
 * frame. Records are read straight out of the network chunks; only what the caller keeps (a key's
 * text, a value envelope) is ever turned into JS values.
 */
export const FRAMES_CONTENT_TYPE = "application/vnd.lastword.frames";

/** Frame kinds; a produce body uses the same two (produce-frames.ts). */
export const BATCH = 4;
export const PARTITION = 5;
const OFFSETS = 6;
const ERROR = 3;
/** Stored batches: the log's own Kafka RecordBatch v2 bytes, with the range and offsets they mean. */
const STORED = 7;
/** A stored frame's fields before its keep list: f64 from | f64 end | i32 keepCount. */
const STORED_HEAD_BYTES = 20;
const EMPTY = Buffer.alloc(0);
/** Bytes of a new chunk first joined to a record cut at the end of the previous one. */
const JOIN_BYTES = 4096;

/** One record as positions in `buf` (reused from record to record: copy what you keep). */
export interface RawRecord {
  partition: number;
  buf: Buffer;
  offset: number;
  timestamp: number;
  /** -1 for a null key. */
  keyStart: number;
  keyEnd: number;
  /** -1 for a tombstone. */
  valueStart: number;
  valueEnd: number;
  headersStart: number;
  headerCount: number;
  /**
   * Where the record ends when it came in a stored frame (Kafka's varint-length headers), -1 when in
   * a batch frame (u16/i32-length headers).
   */
  storedEnd: number;
}

/**
 * The bytes as text when they are UTF-8 (a leading byte-order mark dropped, as the server's NDJSON
 * envelopes do), else null. Node decodes invalid UTF-8 to U+FFFD, so only a decoded U+FFFD needs
 * the exact check.
 */
export function textOf(buf: Buffer, start: number, end: number): string | null {
  const text = buf.toString("utf8", start, end);
  if (text.includes("\uFFFD") && !Buffer.from(text, "utf8").equals(buf.subarray(start, end))) return null;
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The envelope NDJSON would show for these bytes with format `auto`: text, or base64. */
export function envelopeOf(buf: Buffer, start: number, end: number): Envelope {
  const text = textOf(buf, start, end);
  return text === null
    ? { type: "base64", data: buf.toString("base64", start, end) }
    : { type: "string", data: text };
}

/** The record's headers as NDJSON shows them. */
export function headersOf(r: RawRecord): { key: string; value: Envelope | null }[] {
  const { buf } = r;
  const headers: { key: string; value: Envelope | null }[] = [];
  if (r.storedEnd >= 0) {
    forEachHeader(
      buf,
      r.headersStart,
      r.headerCount,
      r.storedEnd,
      (nameStart, nameEnd, valueStart, valueEnd) => {
        headers.push({
          key: buf.toString("utf8", nameStart, nameEnd),
          value: valueStart < 0 ? null : envelopeOf(buf, valueStart, valueEnd),
        });
      },
    );
    return headers;
  }
  let pos = r.headersStart;
  for (let n = 0; n < r.headerCount; n++) {
    const nameLength = buf.readUInt16BE(pos);
    const name = buf.toString("utf8", pos + 2, pos + 2 + nameLength);
    pos += 2 + nameLength;
    const length = buf.readInt32BE(pos);
    pos += 4;
    headers.push({ key: name, value: length < 0 ? null : envelopeOf(buf, pos, pos + length) });
    if (length > 0) pos += length;
  }
  return headers;
}

function i32(buf: Buffer, pos: number): number {
  return (buf[pos]! << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!;
}

/** Where the bytes of the i32-length-prefixed field at `at` start; -1 when it is null. */
function fieldStart(buf: Buffer, at: number): number {
  return i32(buf, at) < 0 ? -1 : at + 4;
}

/** Where the field at `at` (length and bytes) ends. */
function fieldEnd(buf: Buffer, at: number): number {
  return at + 4 + Math.max(i32(buf, at), 0);
}

/**
 * Fills `r` with the record at `pos` and answers where it ends, or -1 when it is not all before
 * `limit` yet (it continues in the next chunk).
 */
function readRecord(buf: Buffer, pos: number, limit: number, r: RawRecord): number {
  if (pos + 20 > limit) return -1;
  let at = pos + 16;
  r.keyStart = fieldStart(buf, at);
  at = r.keyEnd = fieldEnd(buf, at);
  if (at + 4 > limit) return -1;
  r.valueStart = fieldStart(buf, at);
  at = r.valueEnd = fieldEnd(buf, at);
  if (at + 2 > limit) return -1;
  r.headerCount = (buf[at]! << 8) | buf[at + 1]!;
  at += 2;
  r.headersStart = at;
  for (let n = 0; n < r.headerCount; n++) {
    if (at + 2 > limit) return -1;
    at += 2 + ((buf[at]! << 8) | buf[at + 1]!);
    if (at + 4 > limit) return -1;
    at = fieldEnd(buf, at);
  }
  if (at > limit) return -1;
  r.buf = buf;
  r.storedEnd = -1;
  r.offset = buf.readDoubleBE(pos);
  r.timestamp = buf.readDoubleBE(pos + 8);
  return at;
}

const overrun = () => new Error("a record overruns its stored frame");

/** One walk for every stored frame: frames are decoded one at a time, to the end. */
const walk = new RecordBatchWalk();

/**
 * Visits the records a whole stored frame (`frame`, header included) means: those of its Kafka
 * batches in [from, end), and when it lists offsets only those. Lengths are checked against the
 * frame, never read past (RecordBatchWalk); CRCs are not (the worker's log store checked them on read).
 */
function readStoredFrame(frame: Buffer, r: RawRecord, visit: (record: RawRecord) => void): void {
  if (frame.length < 5 + STORED_HEAD_BYTES) throw overrun();
  const from = frame.readDoubleBE(5);
  const end = frame.readDoubleBE(13);
  const keepCount = frame.readInt32BE(21);
  const keepAt = 5 + STORED_HEAD_BYTES;
  const batchesAt = keepAt + Math.max(keepCount, 0) * 8;
  if (batchesAt > frame.length) throw overrun();
  let k = 0;
  r.buf = frame;
  walk.reset(frame, batchesAt, frame.length);
  while (walk.nextBatch()) {
    while (walk.nextRecord()) {
      const offset = walk.offset;
      let wanted = offset >= from && offset < end;
      if (wanted && keepCount >= 0) {
        while (k < keepCount && frame.readDoubleBE(keepAt + k * 8) < offset) k++;
        wanted = k < keepCount && frame.readDoubleBE(keepAt + k * 8) === offset;
      }
      if (!wanted) continue;
      r.keyStart = walk.keyStart;
      r.keyEnd = walk.keyEnd;
      r.valueStart = walk.valueStart;
      r.valueEnd = walk.valueEnd;
      r.headerCount = walk.headerCount;
      r.headersStart = walk.headersStart;
      r.storedEnd = walk.recordEnd;
      r.offset = offset;
      r.timestamp = walk.timestamp;
      visit(r);
    }
  }
}

/**
 * Incremental reader: `push` each body chunk, with a visitor called once per record; `finish`
 * answers the offsets frame, or throws when the body ended without one. An error frame throws the
 * server's problem as LastwordApiError.
 */
export class FrameReader {
  #pending: Buffer = EMPTY;
  /** Bytes of the current batch still to read (0: at a frame boundary). */
  #batchLeft = 0;
  /**
   * A stored frame is decoded whole: straight from the chunk when it lies in one, else gathered
   * here first (one buffer reused frame after frame: visitors copy what they keep, and fresh
   * megabyte buffers would cost page faults and garbage collection for every frame).
   */
  #scratch: Buffer = EMPTY;
  /** Bytes gathered in #scratch, and bytes of the frame still to come (0: none being gathered). */
  #storedHave = 0;
  #storedLeft = 0;
  #partition = -1;
  #offsets: Record<number, number> | null = null;
  readonly #record: RawRecord = {
    partition: -1,
    buf: this.#pending,
    offset: 0,
    timestamp: 0,
    keyStart: -1,
    keyEnd: -1,
    valueStart: -1,
    valueEnd: -1,
    headersStart: 0,
    headerCount: 0,
    storedEnd: -1,
  };

  push(chunk: Uint8Array, visit: (record: RawRecord) => void): void {
    let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.#pending.length) {
      // A record or frame header cut by the last chunk boundary: join it with only as much of this
      // chunk as completes it (not the whole chunk, which would copy every byte of the stream).
      let used = 0;
      for (let take = Math.min(bytes.length, JOIN_BYTES); ; take = Math.min(bytes.length, take * 4)) {
        const joined = Buffer.concat([this.#pending, bytes.subarray(used, take)]);
        const done = this.#read(joined, visit, this.#pending.length);
        if (done >= this.#pending.length) {
          bytes = bytes.subarray(used + done - this.#pending.length);
          this.#pending = EMPTY;
          break;
        }
        this.#pending = joined.subarray(done);
        used = take;
        if (take === bytes.length) return;
      }
    }
    const done = this.#read(bytes, visit, bytes.length);
    this.#pending = done < bytes.length ? bytes.subarray(done) : EMPTY;
  }

  /**
   * Reads whole frames and records from the start of `buf` until one is cut or `stopAt` is
   * passed; answers where it stopped.
   */
  #read(buf: Buffer, visit: (record: RawRecord) => void, stopAt: number): number {
    let pos = 0;
    const r = this.#record;
    while (pos < stopAt && pos < buf.length) {
      if (this.#offsets) throw new Error("bytes after the stream's offsets frame");
      if (this.#storedLeft > 0) {
        const n = Math.min(this.#storedLeft, buf.length - pos);
        this.#scratch.set(buf.subarray(pos, pos + n), this.#storedHave);
        pos += n;
        this.#storedHave += n;
        this.#storedLeft -= n;
        if (this.#storedLeft === 0) readStoredFrame(this.#scratch.subarray(0, this.#storedHave), r, visit);
        continue;
      }
      if (this.#batchLeft > 0) {
        const limit = Math.min(buf.length, pos + this.#batchLeft);
        while (pos < stopAt) {
          const end = readRecord(buf, pos, limit, r);
          if (end < 0) break;
          visit(r);
          this.#batchLeft -= end - pos;
          pos = end;
          if (pos >= limit) break;
        }
        if (this.#batchLeft > 0) {
          if (pos < stopAt && pos + this.#batchLeft <= buf.length) {
            throw new Error("a record overruns its batch frame");
          }
          break;
        }
        continue;
      }
      const next = this.#frame(buf, pos, visit);
      if (next < 0) break;
      pos = next;
    }
    return pos;
  }

  /** Reads the frame header at `pos`; answers where the next thing starts, or -1 if it is cut. */
  #frame(buf: Buffer, pos: number, visit: (record: RawRecord) => void): number {
    const kind = buf[pos];
    if (pos + 5 > buf.length) return -1;
    const n = buf.readUInt32BE(pos + 1);
    switch (kind) {
      case PARTITION:
        this.#partition = n;
        this.#record.partition = n;
        return pos + 5;
      case BATCH:
        if (this.#partition < 0) throw new Error("a batch frame before any partition frame");
        this.#batchLeft = n;
        return pos + 5;
      case STORED:
        if (this.#partition < 0) throw new Error("a stored frame before any partition frame");
        if (n < STORED_HEAD_BYTES) throw overrun();
        if (pos + 5 + n <= buf.length) {
          readStoredFrame(buf.subarray(pos, pos + 5 + n), this.#record, visit);
          return pos + 5 + n;
        }
        // The header goes with the frame: the decoder reads it at the positions the format names.
        if (this.#scratch.length < 5 + n)
          this.#scratch = Buffer.allocUnsafeSlow(Math.max(5 + n, this.#scratch.length * 2));
        this.#scratch.set(buf.subarray(pos, pos + 5), 0);
        this.#storedHave = 5;
        this.#storedLeft = n;
        return pos + 5;
      case OFFSETS: {
        if (pos + 5 + n * 12 > buf.length) return -1;
        const offsets: Record<number, number> = {};
        for (let i = 0, at = pos + 5; i < n; i++, at += 12)
          offsets[buf.readUInt32BE(at)] = buf.readDoubleBE(at + 4);
        this.#offsets = offsets;
        return pos + 5 + n * 12;
      }
      case ERROR: {
        if (pos + 5 + n > buf.length) return -1;
        const problem = JSON.parse(buf.toString("utf8", pos + 5, pos + 5 + n)) as Problem;
        throw new LastwordApiError(problem, null);
      }
      default:
        throw new Error(`unknown stream frame ${kind}`);
    }
  }

  finish(): Record<number, number> {
    if (!this.#offsets || this.#pending.length || this.#batchLeft > 0 || this.#storedLeft > 0) {
      throw new Error("the stream ended before its offsets frame (connection lost?)");
    }
    return this.#offsets;
  }
}
