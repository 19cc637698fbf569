import {
  DATA_PLANE_STREAM_KINDS,
  decodeBatchFrame,
  decodeStoredFrame,
  FRAME_HEADER_BYTES,
  FRAME_KIND,
  FrameFormatError,
  FrameSplitter,
  readStreamFrameHead,
  type SplitFrame,
  wholeFrame,
} from "@lastword/frames";
import { DataPlaneError, isDataPlaneErrorCode } from "./errors";
import type { FetchedRecord } from "./record-codec";

/**
 * The data plane's partition stream (replay, snapshot, fetch) over HTTP, worker → web: its
 * frames (batch, stored, end, error) are @lastword/frames' (format in its frame-kinds.ts); this
 * is the reading side's transport: cutting the body's chunks at frame boundaries and turning
 * failures into DataPlaneErrors.
 */
export type StreamFrame =
  | { kind: "records"; records: FetchedRecord[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };

/** A stream cut at frame boundaries without decoding records: whole batch frames (in parts), then the end. */
export type StreamPiece =
  | { kind: "batch"; parts: Buffer[] }
  | { kind: "end"; endOffset: number; logStartOffset: number };

function errorOf(json: Uint8Array): DataPlaneError {
  const body = JSON.parse(Buffer.from(json).toString("utf8")) as {
    code: string;
    message: string;
    retriable: boolean;
  };
  const code = isDataPlaneErrorCode(body.code) ? body.code : "INTERNAL";
  return new DataPlaneError(code, body.message, { retriable: body.retriable });
}

/** A whole frame of the stream as what a reader gets of it; throws the worker's error frame. */
function pieceOf(frame: SplitFrame): StreamPiece {
  if (frame.kind === FRAME_KIND.ERROR) {
    throw errorOf(wholeFrame(frame.parts).subarray(FRAME_HEADER_BYTES));
  }
  if (frame.kind === FRAME_KIND.END) {
    const head = readStreamFrameHead(wholeFrame(frame.parts));
    if (head.kind === "end") return head;
  }
  return { kind: "batch", parts: frame.parts as Buffer[] };
}

/**
 * Cuts the chunks of a stream body at frame boundaries (@lastword/frames' FrameSplitter, the one
 * reassembler), touching only frame heads (a few per megabyte): batch and stored frames come out
 * whole (as views of the chunks they arrived in, no copy), so whoever forwards them never sends
 * half a frame before an error. Throws the worker's DataPlaneError for an error frame, and
 * INTERNAL when the body ends mid-frame or without an end, or holds what the stream does not carry.
 */
export async function* splitStreamFrames(chunks: AsyncIterable<Buffer>): AsyncGenerator<StreamPiece> {
  const splitter = new FrameSplitter(DATA_PLANE_STREAM_KINDS, [FRAME_KIND.END]);
  const whole: SplitFrame[] = [];
  let ended = false;
  // Leaving early (the consumer stopped, or an error frame) ends the body's reading too: for await
  // returns the source.
  for await (const chunk of chunks) {
    try {
      splitter.push(chunk, (frame) => whole.push(frame));
    } catch (error) {
      if (error instanceof FrameFormatError) throw new DataPlaneError("INTERNAL", error.message);
      throw error;
    }
    for (const frame of whole.splice(0)) {
      const piece = pieceOf(frame);
      ended = piece.kind === "end";
      yield piece;
    }
  }
  if (splitter.midFrame || !ended) throw new DataPlaneError("INTERNAL", "partition stream ended mid-way");
}

/** A view of `bytes` as a Buffer (the encoders answer Uint8Arrays; in Node they are Buffers already). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
  parts: readonly Uint8Array[],
  options: DecodeBatchOptions = {},
): FetchedRecord[] {
  try {
    const one = parts.length === 1 ? asBuffer(parts[0]!) : null;
    if (parts[0]?.[0] === FRAME_KIND.STORED) {
      return decodeStoredFrame(one ? Buffer.from(one) : Buffer.concat(parts));
    }
    return decodeBatchFrame(one ?? Buffer.concat(parts), options.views === true);
  } catch (error) {
    if (error instanceof FrameFormatError) throw new DataPlaneError("INTERNAL", error.message);
    throw error;
  }
}

/** The stream's frames with their records decoded (what a reader that needs each record uses). */
export async function* decodeStreamFrames(chunks: AsyncIterable<Buffer>): AsyncGenerator<StreamFrame> {
  for await (const piece of splitStreamFrames(chunks)) {
    if (piece.kind === "end") yield piece;
    else yield { kind: "records", records: decodeRecordBatch(piece.parts) };
  }
}
