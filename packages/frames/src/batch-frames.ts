import { f64, i32, putF64, putI32, putU8, putU16, u16, utf8 } from "./frame-bytes";
import { FRAME_HEADER_BYTES, FRAME_KIND, FrameFormatError, RECORD_FIXED_BYTES } from "./frame-kinds";
import {
  allocBytes,
  type EncodableFrameRecord,
  emptySpan,
  type FrameRecord,
  type RecordSpan,
  recordOf,
} from "./frame-records";

// A batch frame's record layout (frame-kinds.ts): the encoder, the position reader, the object decoder.

/** The span decodeBatchFrame reads into (it does not nest). */
const SPAN = emptySpan();

function recordSize(record: EncodableFrameRecord, names: (Uint8Array | null)[], at: number): number {
  let size = RECORD_FIXED_BYTES + 4 + (record.key?.length ?? 0) + 4 + (record.value?.length ?? 0) + 2;
  for (let h = 0; h < record.headers.length; h++) {
    const header = record.headers[h]!;
    const name = utf8(header.key);
    names[at + h] = name;
    size += 2 + name.length + 4 + (header.value?.length ?? 0);
  }
  return size;
}

function putBytes(out: Uint8Array, pos: number, bytes: Uint8Array | null): number {
  if (bytes === null) return putI32(out, -1, pos);
  pos = putI32(out, bytes.length, pos);
  out.set(bytes, pos);
  return pos + bytes.length;
}

/** The body of a batch frame for `records` (without the frame header), written at `pos`. */
function putRecords(
  out: Uint8Array,
  pos: number,
  records: readonly EncodableFrameRecord[],
  from: number,
  to: number,
  names: readonly (Uint8Array | null)[],
  nameAt: readonly number[],
): number {
  for (let i = from; i < to; i++) {
    const r = records[i]!;
    pos = putF64(out, r.offset ?? 0, pos);
    pos = putF64(out, r.timestamp, pos);
    pos = putBytes(out, pos, r.key);
    pos = putBytes(out, pos, r.value);
    pos = putU16(out, r.headers.length, pos);
    for (let h = 0; h < r.headers.length; h++) {
      const name = names[nameAt[i]! + h]!;
      pos = putU16(out, name.length, pos);
      out.set(name, pos);
      pos = putBytes(out, pos + name.length, r.headers[h]!.value);
    }
  }
  return pos;
}

/**
 * Frames for `records`: one batch frame per run, each run preceded by the `prefix` frame it asks for
 * (a produce body's partition frames); without runs, one batch frame holding them all.
 */
export function encodeBatchFrames(
  records: readonly EncodableFrameRecord[],
  runs: readonly { start: number; end: number; prefix: Uint8Array | null }[] = [
    { start: 0, end: records.length, prefix: null },
  ],
): Uint8Array {
  const names: (Uint8Array | null)[] = [];
  const nameAt: number[] = new Array(records.length);
  const sizes: number[] = new Array(records.length);
  let total = 0;
  for (let i = 0; i < records.length; i++) {
    nameAt[i] = names.length;
    names.length += records[i]!.headers.length;
    sizes[i] = recordSize(records[i]!, names, nameAt[i]!);
  }
  const runBytes = runs.map(({ start, end }) => {
    let bytes = 0;
    for (let i = start; i < end; i++) bytes += sizes[i]!;
    return bytes;
  });
  for (let k = 0; k < runs.length; k++)
    total += (runs[k]!.prefix?.length ?? 0) + FRAME_HEADER_BYTES + runBytes[k]!;
  const out = allocBytes(total);
  let pos = 0;
  for (let k = 0; k < runs.length; k++) {
    const run = runs[k]!;
    if (run.prefix) {
      out.set(run.prefix, pos);
      pos += run.prefix.length;
    }
    pos = putU8(out, FRAME_KIND.BATCH, pos);
    pos = putI32(out, runBytes[k]!, pos);
    pos = putRecords(out, pos, records, run.start, run.end, names, nameAt);
  }
  return out;
}

/** One batch frame holding many records (one socket write per read page). */
export function encodeRecordFrames(records: readonly EncodableFrameRecord[]): Uint8Array {
  return encodeBatchFrames(records);
}

/** Where the bytes of the i32-length-prefixed field at `at` start; -1 when it is null. */
function fieldStart(buf: Uint8Array, at: number): number {
  return i32(buf, at) < 0 ? -1 : at + 4;
}

/** Where the field at `at` (length and bytes) ends. */
function fieldEnd(buf: Uint8Array, at: number): number {
  return at + 4 + Math.max(i32(buf, at), 0);
}

/**
 * Fills `r` with the batch-frame record at `pos` and answers where it ends, or -1 when it is not
 * all before `limit` (it continues in the next chunk, or overruns its frame).
 */
export function readFrameRecord(buf: Uint8Array, pos: number, limit: number, r: RecordSpan): number {
  if (pos + RECORD_FIXED_BYTES + 4 > limit) return -1;
  let at = pos + RECORD_FIXED_BYTES;
  r.keyStart = fieldStart(buf, at);
  at = r.keyEnd = fieldEnd(buf, at);
  if (at + 4 > limit) return -1;
  r.valueStart = fieldStart(buf, at);
  at = r.valueEnd = fieldEnd(buf, at);
  if (at + 2 > limit) return -1;
  r.headerCount = u16(buf, at);
  at += 2;
  r.headersStart = at;
  for (let n = 0; n < r.headerCount; n++) {
    if (at + 2 > limit) return -1;
    at += 2 + u16(buf, at);
    if (at + 4 > limit) return -1;
    at = fieldEnd(buf, at);
  }
  if (at > limit) return -1;
  r.buf = buf;
  r.storedEnd = -1;
  r.offset = f64(buf, pos);
  r.timestamp = f64(buf, pos + 8);
  return at;
}

/**
 * Calls `visit` with the positions of each header of a batch-frame record `r` (u16 name length,
 * name, i32 value length (-1 = null), value); valueStart -1 for a null value.
 */
export function forEachFrameHeader(
  r: RecordSpan,
  visit: (nameStart: number, nameEnd: number, valueStart: number, valueEnd: number) => void,
): void {
  const buf = r.buf;
  let pos = r.headersStart;
  for (let n = 0; n < r.headerCount; n++) {
    const nameStart = pos + 2;
    const nameEnd = nameStart + u16(buf, pos);
    const length = i32(buf, nameEnd);
    pos = nameEnd + 4;
    visit(nameStart, nameEnd, length < 0 ? -1 : pos, pos + Math.max(length, 0));
    if (length > 0) pos += length;
  }
}

/**
 * The records of one whole batch frame (header included). Keys, values and header values are
 * copies unless `views` (for a caller that owns the frame's bytes as long as it keeps the records:
 * views of socket chunks would pin them, of a reused buffer would change under the caller).
 */
export function decodeBatchFrame(frame: Buffer, views: boolean): FrameRecord[] {
  const records: FrameRecord[] = [];
  const r = SPAN;
  for (let pos = FRAME_HEADER_BYTES; pos < frame.length; ) {
    const end = readFrameRecord(frame, pos, frame.length, r);
    if (end < 0) throw new FrameFormatError("a record overruns its batch frame");
    records.push(recordOf(frame, r, views, forEachFrameHeader));
    pos = end;
  }
  return records;
}
