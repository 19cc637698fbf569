import { encodeRecordBatch } from "@lastword/record-batch";
import fc from "fast-check";
import type { FrameRecord as FetchedRecord } from "../src/frame-records";

// Test data for stored frames (stored-frames.ts), shared by the data plane's and the client's
// readers' tests: Kafka batches as the log store writes them (offset gaps as compaction leaves
// them, create or append time, a delete horizon), a range and maybe a keep list.

const bytes = fc.option(fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)));
const storedRecord = fc.record({
  gap: fc.integer({ min: 1, max: 4 }),
  timestamp: fc.nat(2 ** 42),
  key: bytes,
  value: bytes,
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: bytes }), { maxLength: 2 }),
});
const storedBatch = fc.record({
  records: fc.array(storedRecord, { minLength: 1, maxLength: 6 }),
  appendTime: fc.boolean(),
  horizon: fc.boolean(),
  gapBefore: fc.nat(3),
});

/** The batches' bytes and every record in them as a reader should see it. */
function storedBatches(
  batches: (typeof storedBatch extends fc.Arbitrary<infer T> ? T : never)[],
  firstOffset: number,
) {
  const all: FetchedRecord[] = [];
  const encoded: Buffer[] = [];
  let offset = firstOffset;
  for (const b of batches) {
    offset += b.gapBefore;
    const baseOffset = offset;
    const records = b.records.map((r) => {
      const offsetDelta = offset - baseOffset;
      offset += r.gap;
      return { ...r, offsetDelta };
    });
    const appendTimeMs = 1_700_000_000_000;
    encoded.push(
      encodeRecordBatch(records, {
        baseOffset,
        appendTimeMs,
        timestampType: b.appendTime ? "LogAppendTime" : "CreateTime",
        deleteHorizonMs: b.horizon ? appendTimeMs + 86_400_000 : null,
      }),
    );
    for (const r of records) {
      all.push({
        offset: baseOffset + r.offsetDelta,
        timestamp: b.appendTime ? appendTimeMs : r.timestamp,
        key: r.key,
        value: r.value,
        headers: r.headers,
      });
    }
  }
  return { bytes: Buffer.concat(encoded), all, next: offset };
}

/**
 * Batches, a range around them (from may fall inside the first batch, end inside the last or past
 * it) and maybe a keep list (some of their offsets plus offsets they do not hold), with the
 * records a reader must see.
 */
export const storedCase = fc
  .record({
    batches: fc.array(storedBatch, { minLength: 1, maxLength: 4 }),
    firstOffset: fc.nat(1000),
    fromPick: fc.nat(),
    endPick: fc.nat(),
    keep: fc.option(fc.array(fc.nat(), { maxLength: 20 })),
  })
  .map(({ batches, firstOffset, fromPick, endPick, keep }) => {
    const { bytes, all, next } = storedBatches(batches, firstOffset);
    const span = next - firstOffset + 2;
    const from = firstOffset + (fromPick % span);
    const end = from + (endPick % (next + 2 - from));
    const keepList =
      keep === null ? null : [...new Set(keep.map((k) => firstOffset + (k % span)))].sort((a, b) => a - b);
    const expected = all.filter(
      (r) => r.offset >= from && r.offset < end && (keepList === null || keepList.includes(r.offset)),
    );
    return { bytes, from, end, keepList, expected };
  });

/** A record of a batch frame with keys, values and header values up to `maxBytes`, null or not. */
export function frameRecord(maxBytes = 64) {
  const bytes = fc.option(
    fc.uint8Array({ maxLength: maxBytes }).map((a) => Buffer.from(a)),
    { nil: null },
  );
  return fc.record({
    offset: fc.nat(1_000_000),
    timestamp: fc.nat(2 ** 42),
    key: bytes,
    value: bytes,
    headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: bytes }), { maxLength: 2 }),
  });
}

/**
 * `body` cut into chunks of `sizes` bytes, one after another, the rest in a last chunk: how a
 * stream's bytes may arrive (views of `body`, Buffers like a socket's).
 */
export function chunksOf(body: Uint8Array, sizes: readonly number[]): Buffer[] {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const out: Buffer[] = [];
  let pos = 0;
  for (const size of sizes) {
    if (pos >= buf.length) break;
    out.push(buf.subarray(pos, pos + size));
    pos += size;
  }
  if (pos < buf.length) out.push(buf.subarray(pos));
  return out;
}
