import { FrameFormatError } from "./frame-kinds";
import { FRAME_SHAPES, type FrameName, type FrameShape } from "./frame-layouts";
import { allocBytes } from "./frame-records";

/** A whole frame as it arrived: its bytes, head included, as views of the chunks (no copy). */
export interface SplitFrame {
  name: FrameName;
  kind: number;
  parts: Uint8Array[];
}

/**
 * The one reassembler of the frame streams: cuts body chunks at frame boundaries by the frames'
 * layouts (FRAME_FORMATS), touching only frame heads (a few per megabyte), and hands on each frame
 * whole. Both stream readers are built on it: the data plane's (`splitStreamFrames`, worker → web)
 * and the REST API's (`FrameReader`, web → client).
 *
 * `kinds` are the frames the stream may carry (anything else throws FrameFormatError); after one
 * of `last` the stream is over and any further byte throws.
 */
export class FrameSplitter {
  readonly #kinds: ReadonlySet<number>;
  readonly #last: ReadonlySet<number>;
  /** The current frame's parts so far, and its bytes still to come (-1: at a frame boundary). */
  #parts: Uint8Array[] = [];
  #left = -1;
  /** A head cut by a chunk boundary, gathered (a few bytes) before its frame can be measured. */
  #head: Uint8Array | null = null;
  #headHave = 0;
  #shape: FrameShape | null = null;
  #over = false;

  constructor(kinds: readonly number[], last: readonly number[]) {
    this.#kinds = new Set(kinds);
    this.#last = new Set(last);
  }

  /** Calls `onFrame` with each frame `chunk` completes, in order. */
  push(chunk: Uint8Array, onFrame: (frame: SplitFrame) => void): void {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.#over) throw new FrameFormatError("bytes after the stream's last frame");
      pos = this.#left < 0 ? this.#startFrame(chunk, pos) : this.#continueFrame(chunk, pos);
      if (this.#left === 0) this.#emit(onFrame);
    }
  }

  /** True when what was pushed ends inside a frame. */
  get midFrame(): boolean {
    return this.#left >= 0 || this.#head !== null;
  }

  /** Reads (or goes on gathering) the head at `pos`; answers where the frame's bytes in this chunk end. */
  #startFrame(chunk: Uint8Array, pos: number): number {
    const shape = this.#shape ?? this.#shapeOf(chunk[pos]!);
    this.#shape = shape;
    if (this.#head === null && pos + shape.headBytes <= chunk.length) {
      // The usual case: the head lies in this chunk, and the frame's first part starts with it.
      const frameBytes = shape.headBytes + shape.bodyBytes(chunk, pos);
      const end = Math.min(chunk.length, pos + frameBytes);
      this.#parts.push(chunk.subarray(pos, end));
      this.#left = frameBytes - (end - pos);
      return end;
    }
    this.#head ??= allocBytes(shape.headBytes);
    const take = Math.min(shape.headBytes - this.#headHave, chunk.length - pos);
    this.#head.set(chunk.subarray(pos, pos + take), this.#headHave);
    this.#headHave += take;
    if (this.#headHave === shape.headBytes) {
      this.#parts.push(this.#head);
      this.#left = shape.bodyBytes(this.#head, 0);
      this.#head = null;
      this.#headHave = 0;
    }
    return pos + take;
  }

  #continueFrame(chunk: Uint8Array, pos: number): number {
    const end = Math.min(chunk.length, pos + this.#left);
    this.#parts.push(chunk.subarray(pos, end));
    this.#left -= end - pos;
    return end;
  }

  #shapeOf(kind: number): FrameShape {
    const shape = FRAME_SHAPES.get(kind);
    if (!shape || !this.#kinds.has(kind)) throw new FrameFormatError(`stream frame of unknown kind ${kind}`);
    return shape;
  }

  #emit(onFrame: (frame: SplitFrame) => void): void {
    const shape = this.#shape!;
    const parts = this.#parts;
    const kind = parts[0]![0]!;
    this.#parts = [];
    this.#left = -1;
    this.#shape = null;
    if (this.#last.has(kind)) this.#over = true;
    onFrame({ name: shape.name, kind, parts });
  }
}

/**
 * The frame's bytes in one array: its only part as it is, or the parts joined into `scratch` when
 * that is large enough (else into a new array).
 */
export function wholeFrame(parts: readonly Uint8Array[], scratch?: Uint8Array): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let bytes = 0;
  for (const part of parts) bytes += part.length;
  const out = scratch && scratch.length >= bytes ? scratch.subarray(0, bytes) : allocBytes(bytes);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
