import { forEachHeader, RecordBatchFormatError, RecordBatchWalk } from "@lastword/record-batch";
import { f64, i32, putF64, putI32, putU8 } from "./frame-bytes";
import { FRAME_HEADER_BYTES, FRAME_KIND, FrameFormatError, STORED_HEAD_BYTES } from "./frame-kinds";
import { allocBytes, emptySpan, type FrameRecord, type RecordSpan, recordOf } from "./frame-records";

/** The stored frame's head (its batches are written after it, as they are: no copy of them). */
export function encodeStoredHead(
  batchBytes: number,
  fromOffset: number,
  endOffset: number,
  keep: ArrayLike<number> | null,
): Uint8Array {
  const keepCount = keep?.length ?? 0;
  const out = allocBytes(FRAME_HEADER_BYTES + STORED_HEAD_BYTES + keepCount * 8);
  let pos = putU8(out, FRAME_KIND.STORED, 0);
  pos = putI32(out, STORED_HEAD_BYTES + keepCount * 8 + batchBytes, pos);
  pos = putF64(out, fromOffset, pos);
  pos = putF64(out, endOffset, pos);
  pos = putI32(out, keep ? keepCount : -1, pos);
  for (let i = 0; i < keepCount; i++) pos = putF64(out, keep![i]!, pos);
  return out;
}

const overrun = () => new FrameFormatError("a record overruns its stored frame");

/** One walk for every stored frame: frames are read one at a time, each to its end. */
const walk = new RecordBatchWalk();

/**
 * Visits the records a whole stored frame (`frame`, header included) means: those of its Kafka
 * batches in [from, end), and when it lists offsets only those. Lengths are checked against the
 * frame, never read past (RecordBatchWalk); CRCs are not (the worker's log store checked them on
 * read). Throws FrameFormatError.
 */
export function readStoredFrame(frame: Uint8Array, r: RecordSpan, visit: (record: RecordSpan) => void): void {
  if (frame.length < FRAME_HEADER_BYTES + STORED_HEAD_BYTES) throw overrun();
  const from = f64(frame, FRAME_HEADER_BYTES);
  const end = f64(frame, FRAME_HEADER_BYTES + 8);
  const keepCount = i32(frame, FRAME_HEADER_BYTES + 16);
  const keepAt = FRAME_HEADER_BYTES + STORED_HEAD_BYTES;
  const batchesAt = keepAt + Math.max(keepCount, 0) * 8;
  if (batchesAt > frame.length) throw overrun();
  let k = 0;
  r.buf = frame;
  walk.reset(frame, batchesAt, frame.length);
  try {
    while (walk.nextBatch()) {
      while (walk.nextRecord()) {
        const offset = walk.offset;
        let wanted = offset >= from && offset < end;
        if (wanted && keepCount >= 0) {
          while (k < keepCount && f64(frame, keepAt + k * 8) < offset) k++;
          wanted = k < keepCount && f64(frame, keepAt + k * 8) === offset;
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
  } catch (error) {
    if (error instanceof RecordBatchFormatError)
      throw new FrameFormatError(`a stored frame holds ${error.message}`);
    throw error;
  }
}

/**
 * Calls `visit` with the positions of each header of a stored-frame record `r` (Kafka's varint
 * layout, checked against the record's end).
 */
export function forEachStoredHeader(
  r: RecordSpan,
  visit: (nameStart: number, nameEnd: number, valueStart: number, valueEnd: number) => void,
): void {
  try {
    forEachHeader(r.buf, r.headersStart, r.headerCount, r.storedEnd, visit);
  } catch (error) {
    if (error instanceof RecordBatchFormatError) throw overrun();
    throw error;
  }
}

/**
 * The records a stored frame means (`frame` is the whole frame, header included, and owned: the
 * records' bytes are views of it).
 */
export function decodeStoredFrame(frame: Buffer): FrameRecord[] {
  const records: FrameRecord[] = [];
  readStoredFrame(frame, emptySpan(), (r) => {
    records.push(recordOf(frame, r, true, forEachStoredHeader));
  });
  return records;
}
