import type { Envelope, Problem } from "@lastword/api";
import {
  FrameReader as FramesReader,
  forEachFrameHeader,
  forEachStoredHeader,
  type RecordSpan,
} from "@lastword/frames";
import { toBase64, utf8Text, utf8TextOrNull, view } from "./bytes";
import { LastwordApiError } from "./problem-error";

/**
 * The client's side of the streaming routes' binary answer (`Accept: application/vnd.lastword.frames`;
 * the format and its reader are @lastword/frames'): records arrive as positions in the network
 * chunks, and only what the caller keeps (a key's text, a value envelope) is turned into JS values,
 * here.
 */
export { FRAMES_CONTENT_TYPE } from "@lastword/frames";

/** One record as positions in `buf` (reused from record to record: copy what you keep). */
export type RawRecord = RecordSpan;

/** The frames reader with the server's error frame thrown as LastwordApiError. */
export class FrameReader extends FramesReader {
  constructor() {
    super((problem) => new LastwordApiError(problem as Problem, null));
  }
}

/** The bytes as text when they are UTF-8 (a leading byte-order mark dropped, as the server's NDJSON envelopes do), else null. */
export function textOf(bytes: Uint8Array, start: number, end: number): string | null {
  return utf8TextOrNull(view(bytes, start, end));
}

/** The bytes in base64 (a key that is not UTF-8 keys the state map so). */
export function base64Of(bytes: Uint8Array, start: number, end: number): string {
  return toBase64(view(bytes, start, end));
}

/** The envelope NDJSON would show for these bytes with format `auto`: text, or base64. */
export function envelopeOf(bytes: Uint8Array, start: number, end: number): Envelope {
  const text = textOf(bytes, start, end);
  return text === null
    ? { type: "base64", data: base64Of(bytes, start, end) }
    : { type: "string", data: text };
}

/** The record's headers as NDJSON shows them. */
export function headersOf(r: RawRecord): { key: string; value: Envelope | null }[] {
  const { buf } = r;
  const headers: { key: string; value: Envelope | null }[] = [];
  const visit = (nameStart: number, nameEnd: number, valueStart: number, valueEnd: number) => {
    headers.push({
      key: utf8Text(view(buf, nameStart, nameEnd)),
      value: valueStart < 0 ? null : envelopeOf(buf, valueStart, valueEnd),
    });
  };
  if (r.storedEnd >= 0) forEachStoredHeader(r, visit);
  else forEachFrameHeader(r, visit);
  return headers;
}
