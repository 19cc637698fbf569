import { readFrameRecord } from "./batch-frames";
import { f64, u32 } from "./frame-bytes";
import { FRAME_HEADER_BYTES, FRAME_KIND, FrameFormatError, OFFSETS_ENTRY_BYTES } from "./frame-kinds";
import { allocBytes, asBytes, emptySpan, type RecordSpan } from "./frame-records";
import { FrameSplitter, type SplitFrame, wholeFrame } from "./frame-splitter";
import { readStoredFrame } from "./stored-frames";

const EMPTY = new Uint8Array(0);

/**
 * Reader of the REST API's binary stream answer (`FRAMES_CONTENT_TYPE`: partition frames, batch
 * and stored frames of records, the offsets frame last, or an error frame). Records are read as
 * positions (RecordSpan) out of each whole frame: straight from the network chunk when the frame
 * lies in one, else from one scratch buffer it is gathered into; only what the caller keeps is ever
 * turned into JS values. Uint8Array only (in Node the spans' `buf` is a Buffer view, for callers'
 * text decoding).
 *
 * Incremental: `push` each body chunk, with a visitor called once per record; `finish`
 * answers the offsets frame, or throws when the body ended without one. An error frame throws
 * `errorOf(its JSON)`; malformed bytes throw FrameFormatError.
 */
export class FrameReader {
  readonly #splitter = new FrameSplitter(
    [FRAME_KIND.PARTITION, FRAME_KIND.BATCH, FRAME_KIND.STORED, FRAME_KIND.OFFSETS, FRAME_KIND.ERROR],
    [FRAME_KIND.OFFSETS],
  );
  /**
   * Frames cut by chunk boundaries are joined here (one buffer reused frame after frame: visitors
   * copy what they keep, and fresh megabyte buffers would cost page faults and garbage collection
   * for every frame).
   */
  #scratch: Uint8Array = EMPTY;
  #offsets: Record<number, number> | null = null;
  readonly #record: RecordSpan = emptySpan();
  readonly #errorOf: (body: unknown) => Error;

  /** `errorOf`: the error to throw for an error frame's JSON (the client's LastwordApiError). */
  constructor(errorOf: (body: unknown) => Error = (body) => new Error(JSON.stringify(body))) {
    this.#errorOf = errorOf;
  }

  push(chunk: Uint8Array, visit: (record: RecordSpan) => void): void {
    this.#splitter.push(asBytes(chunk), (frame) => this.#read(frame, visit));
  }

  #read({ kind, parts }: SplitFrame, visit: (record: RecordSpan) => void): void {
    const r = this.#record;
    if (kind === FRAME_KIND.PARTITION) {
      r.partition = u32(parts[0]!, 1);
      return;
    }
    if ((kind === FRAME_KIND.BATCH || kind === FRAME_KIND.STORED) && r.partition < 0) {
      throw new Error(`a ${kind === FRAME_KIND.BATCH ? "batch" : "stored"} frame before any partition frame`);
    }
    const frame = this.#whole(parts);
    switch (kind) {
      case FRAME_KIND.BATCH:
        for (let pos = FRAME_HEADER_BYTES; pos < frame.length; ) {
          pos = readFrameRecord(frame, pos, frame.length, r);
          if (pos < 0) throw new FrameFormatError("a record overruns its batch frame");
          visit(r);
        }
        return;
      case FRAME_KIND.STORED:
        readStoredFrame(frame, r, visit);
        return;
      case FRAME_KIND.OFFSETS: {
        const offsets: Record<number, number> = {};
        for (let at = FRAME_HEADER_BYTES; at < frame.length; at += OFFSETS_ENTRY_BYTES)
          offsets[u32(frame, at)] = f64(frame, at + 4);
        this.#offsets = offsets;
        return;
      }
      default: // FRAME_KIND.ERROR, the only kind left
        throw this.#errorOf(JSON.parse(new TextDecoder().decode(frame.subarray(FRAME_HEADER_BYTES))));
    }
  }

  #whole(parts: readonly Uint8Array[]): Uint8Array {
    if (parts.length === 1) return parts[0]!;
    let bytes = 0;
    for (const part of parts) bytes += part.length;
    if (this.#scratch.length < bytes) this.#scratch = allocBytes(Math.max(bytes, this.#scratch.length * 2));
    return wholeFrame(parts, this.#scratch);
  }

  finish(): Record<number, number> {
    if (!this.#offsets || this.#splitter.midFrame) {
      throw new Error("the stream ended before its offsets frame (connection lost?)");
    }
    return this.#offsets;
  }
}
