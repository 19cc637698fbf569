import { f64, putF64, putI32, putU8, u32, utf8 } from "./frame-bytes";
import {
  END_FRAME_BYTES,
  FRAME_HEADER_BYTES,
  FRAME_KIND,
  FrameFormatError,
  OFFSETS_ENTRY_BYTES,
} from "./frame-kinds";
import { FRAME_SHAPES } from "./frame-layouts";
import { allocBytes } from "./frame-records";

// The frames around the records: a stream's end, offsets and error frames, the REST stream's and a
// produce body's partition frame; and the reading of a data-plane stream's frame heads.

export function encodeEndFrame(endOffset: number, logStartOffset: number): Uint8Array {
  const out = allocBytes(END_FRAME_BYTES);
  putF64(out, logStartOffset, putF64(out, endOffset, putU8(out, FRAME_KIND.END, 0)));
  return out;
}

/** The worker's `{ code, message, retriable }`, or (REST binary stream) the API's problem document. */
export function encodeErrorFrame(error: object): Uint8Array {
  const json = utf8(JSON.stringify(error));
  const out = allocBytes(FRAME_HEADER_BYTES + json.length);
  out.set(json, putI32(out, json.length, putU8(out, FRAME_KIND.ERROR, 0)));
  return out;
}

export function encodePartitionFrame(partition: number): Uint8Array {
  const out = allocBytes(FRAME_HEADER_BYTES);
  putI32(out, partition, putU8(out, FRAME_KIND.PARTITION, 0));
  return out;
}

export function encodeOffsetsFrame(offsets: readonly { partition: number; offset: number }[]): Uint8Array {
  const out = allocBytes(FRAME_HEADER_BYTES + offsets.length * OFFSETS_ENTRY_BYTES);
  let pos = putI32(out, offsets.length, putU8(out, FRAME_KIND.OFFSETS, 0));
  for (const o of offsets) pos = putF64(out, o.offset, putI32(out, o.partition, pos));
  return out;
}

/** A data-plane stream frame's head, read: the end frame whole, or the length of the body that follows. */
export type StreamFrameHead =
  | { kind: "end"; endOffset: number; logStartOffset: number }
  | { kind: "batch" | "stored" | "error"; bodyBytes: number };

/** The frames a data-plane stream (`STREAM_CONTENT_TYPE`) carries; the end frame is its last. */
export const DATA_PLANE_STREAM_KINDS: readonly number[] = [
  FRAME_KIND.BATCH,
  FRAME_KIND.STORED,
  FRAME_KIND.END,
  FRAME_KIND.ERROR,
];

/**
 * How many bytes of a data-plane stream frame of `kind` (`STREAM_CONTENT_TYPE`) make its head: all
 * of an end frame, the kind and length of the others (FRAME_FORMATS). -1 for a kind that stream
 * does not carry.
 */
export function streamFrameHeadBytes(kind: number | undefined): number {
  if (kind === undefined || !DATA_PLANE_STREAM_KINDS.includes(kind)) return -1;
  return FRAME_SHAPES.get(kind)!.headBytes;
}

/** Reads the head of a data-plane stream frame (`streamFrameHeadBytes` of its kind, gathered). */
export function readStreamFrameHead(head: Uint8Array): StreamFrameHead {
  const kind = head[0];
  const headBytes = streamFrameHeadBytes(kind);
  if (headBytes < 0) throw new FrameFormatError(`stream frame of unknown kind ${kind}`);
  if (head.length < headBytes) throw new FrameFormatError(`a stream frame head cut at ${head.length} bytes`);
  if (kind === FRAME_KIND.END) return { kind: "end", endOffset: f64(head, 1), logStartOffset: f64(head, 9) };
  const bodyBytes = u32(head, 1);
  return {
    kind: kind === FRAME_KIND.BATCH ? "batch" : kind === FRAME_KIND.STORED ? "stored" : "error",
    bodyBytes,
  };
}
