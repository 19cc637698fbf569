import {
  BATCH_HEADER_BYTES,
  LOG_OVERHEAD_BYTES,
  OFF_LENGTH,
  readInt32,
  varintSize,
  writeVarint,
} from "./record-batch";
import { RecordBatchFormatError, RecordBatchWalk } from "./record-walk";

const walk = new RecordBatchWalk();

/**
 * The plain batch at the start of `plain` with every record's value emptied (a null value stays
 * null, any other becomes zero bytes) and everything else — the header, each record's attributes,
 * timestamp and offset deltas, key and headers — as it was; the record and batch lengths rewritten
 * to match, the CRC not (nothing checks a plain copy's CRC). A reader that needs only the records'
 * keys, offsets, timestamps and tombstones (the log store's append validation, the key index, the
 * tombstone audit) walks it exactly as it would walk the whole batch. A worker's inflate threads
 * hand this to the event loop instead of megabytes of values it never reads, which would otherwise
 * churn its heap's external memory into back-to-back full collections that stall every tenant.
 * Null when the records do not walk (a malformed batch): the caller keeps the whole copy, so the
 * refusal is the one the log store's validation gives the whole batch.
 */
export function recordSkeleton(plain: Uint8Array): Uint8Array | null {
  try {
    walk.reset(plain, 0, Math.min(plain.length, LOG_OVERHEAD_BYTES + readInt32(plain, OFF_LENGTH)));
    if (!walk.nextBatch()) return null;
    // Per record: where its body starts, where its value's length varint is (right after the key),
    // where the value ends, where the record ends, and its new body length (-n for a null value).
    const spans: number[] = [];
    let size = BATCH_HEADER_BYTES;
    while (walk.nextRecord()) {
      const bodyStart = varintEnd(plain, walk.recordStart);
      const body = walk.keyEnd - bodyStart + 1 + (walk.recordEnd - walk.valueEnd);
      spans.push(bodyStart, walk.keyEnd, walk.valueEnd, walk.recordEnd, walk.valueStart < 0 ? -body : body);
      size += varintSize(body) + body;
    }
    const out = new Uint8Array(size);
    out.set(plain.subarray(0, BATCH_HEADER_BYTES));
    new DataView(out.buffer).setInt32(OFF_LENGTH, size - LOG_OVERHEAD_BYTES);
    let pos = BATCH_HEADER_BYTES;
    for (let i = 0; i < spans.length; i += 5) {
      const bodyStart = spans[i]!;
      const valueLengthAt = spans[i + 1]!;
      const valueEnd = spans[i + 2]!;
      const recordEnd = spans[i + 3]!;
      const signedBody = spans[i + 4]!;
      pos = writeVarint(out, Math.abs(signedBody), pos);
      out.set(plain.subarray(bodyStart, valueLengthAt), pos);
      pos += valueLengthAt - bodyStart;
      pos = writeVarint(out, signedBody < 0 ? -1 : 0, pos);
      out.set(plain.subarray(valueEnd, recordEnd), pos);
      pos += recordEnd - valueEnd;
    }
    return out;
  } catch (error) {
    if (error instanceof RecordBatchFormatError) return null;
    throw error;
  }
}

/** Where the varint at `start` ends (the walk has checked it lies within its record). */
function varintEnd(buf: Uint8Array, start: number): number {
  let at = start;
  while ((buf[at]! & 0x80) !== 0) at++;
  return at + 1;
}
