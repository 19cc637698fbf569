import { readFrameRecord } from "./batch-frames";
import { f64, u32 } from "./frame-bytes";
import {
  FRAME_HEADER_BYTES,
  FRAME_KIND,
  FrameFormatError,
  OFFSETS_ENTRY_BYTES,
  STORED_HEAD_BYTES,
} from "./frame-kinds";
import { allocBytes, asBytes, concatBytes, emptySpan, type RecordSpan } from "./frame-records";
import { readStoredFrame } from "./stored-frames";

const EMPTY = new Uint8Array(0);
/** Bytes of a new chunk first joined to a record cut at the end of the previous one. */
const JOIN_BYTES = 4096;

/**
 * Reader of the REST API's binary stream answer (`FRAMES_CONTENT_TYPE`: partition frames, batch
 * and stored frames of records, the offsets frame last, or an error frame). Records are read straight
 * out of the network chunks as positions (RecordSpan); only what the caller keeps is ever turned into
 * JS values. Uint8Array only (in Node the spans' `buf` is a Buffer view, for callers' text decoding).
 *
 * Incremental: `push` each body chunk, with a visitor called once per record; `finish`
 * answers the offsets frame, or throws when the body ended without one. An error frame throws
 * `errorOf(its JSON)`; malformed bytes throw FrameFormatError.
 */
export class FrameReader {
  #pending: Uint8Array = EMPTY;
  /** Bytes of the current batch still to read (0: at a frame boundary). */
  #batchLeft = 0;
  /**
   * A stored frame is decoded whole: straight from the chunk when it lies in one, else gathered
   * here first (one buffer reused frame after frame: visitors copy what they keep, and fresh
   * megabyte buffers would cost page faults and garbage collection for every frame).
   */
  #scratch: Uint8Array = EMPTY;
  /** Bytes gathered in #scratch, and bytes of the frame still to come (0: none being gathered). */
  #storedHave = 0;
  #storedLeft = 0;
  #partition = -1;
  #offsets: Record<number, number> | null = null;
  readonly #record: RecordSpan = emptySpan();
  readonly #errorOf: (body: unknown) => Error;

  /** `errorOf`: the error to throw for an error frame's JSON (the client's LastwordApiError). */
  constructor(errorOf: (body: unknown) => Error = (body) => new Error(JSON.stringify(body))) {
    this.#errorOf = errorOf;
  }

  push(chunk: Uint8Array, visit: (record: RecordSpan) => void): void {
    let bytes = asBytes(chunk);
    if (this.#pending.length) {
      // A record or frame header cut by the last chunk boundary: join it with only as much of this
      // chunk as completes it (not the whole chunk, which would copy every byte of the stream).
      let used = 0;
      for (let take = Math.min(bytes.length, JOIN_BYTES); ; take = Math.min(bytes.length, take * 4)) {
        const joined = concatBytes([this.#pending, bytes.subarray(used, take)]);
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
  #read(buf: Uint8Array, visit: (record: RecordSpan) => void, stopAt: number): number {
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
          const end = readFrameRecord(buf, pos, limit, r);
          if (end < 0) break;
          visit(r);
          this.#batchLeft -= end - pos;
          pos = end;
          if (pos >= limit) break;
        }
        if (this.#batchLeft > 0) {
          if (pos < stopAt && pos + this.#batchLeft <= buf.length) {
            throw new FrameFormatError("a record overruns its batch frame");
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
  #frame(buf: Uint8Array, pos: number, visit: (record: RecordSpan) => void): number {
    const kind = buf[pos];
    if (pos + FRAME_HEADER_BYTES > buf.length) return -1;
    const n = u32(buf, pos + 1);
    switch (kind) {
      case FRAME_KIND.PARTITION:
        this.#partition = n;
        this.#record.partition = n;
        return pos + 5;
      case FRAME_KIND.BATCH:
        if (this.#partition < 0) throw new Error("a batch frame before any partition frame");
        this.#batchLeft = n;
        return pos + 5;
      case FRAME_KIND.STORED:
        if (this.#partition < 0) throw new Error("a stored frame before any partition frame");
        if (n < STORED_HEAD_BYTES) throw new FrameFormatError("a record overruns its stored frame");
        if (pos + 5 + n <= buf.length) {
          readStoredFrame(buf.subarray(pos, pos + 5 + n), this.#record, visit);
          return pos + 5 + n;
        }
        // The header goes with the frame: the decoder reads it at the positions the format names.
        if (this.#scratch.length < 5 + n)
          this.#scratch = allocBytes(Math.max(5 + n, this.#scratch.length * 2));
        this.#scratch.set(buf.subarray(pos, pos + 5), 0);
        this.#storedHave = 5;
        this.#storedLeft = n;
        return pos + 5;
      case FRAME_KIND.OFFSETS: {
        const end = pos + FRAME_HEADER_BYTES + n * OFFSETS_ENTRY_BYTES;
        if (end > buf.length) return -1;
        const offsets: Record<number, number> = {};
        for (let at = pos + FRAME_HEADER_BYTES; at < end; at += OFFSETS_ENTRY_BYTES)
          offsets[u32(buf, at)] = f64(buf, at + 4);
        this.#offsets = offsets;
        return end;
      }
      case FRAME_KIND.ERROR: {
        if (pos + 5 + n > buf.length) return -1;
        throw this.#errorOf(JSON.parse(new TextDecoder().decode(buf.subarray(pos + 5, pos + 5 + n))));
      }
      default:
        throw new FrameFormatError(`unknown stream frame ${kind}`);
    }
  }

  finish(): Record<number, number> {
    if (!this.#offsets || this.#pending.length || this.#batchLeft > 0 || this.#storedLeft > 0) {
      throw new Error("the stream ended before its offsets frame (connection lost?)");
    }
    return this.#offsets;
  }
}
