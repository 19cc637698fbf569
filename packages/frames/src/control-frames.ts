import { putF64, putI32, putU8, utf8 } from "./frame-bytes";
import { END_FRAME_BYTES, FRAME_HEADER_BYTES, FRAME_KIND, OFFSETS_ENTRY_BYTES } from "./frame-kinds";
import { allocBytes } from "./frame-records";

// The frames around the records: a stream's end, offsets and error frames, the REST stream's and a
// produce body's partition frame.

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
