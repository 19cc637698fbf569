import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BatchRebuild, rebuiltBatchBound } from "../src/batch-rebuild";
import { batchCrcMatches, decodeBatch, encodeRecordBatch, readBatchHeader } from "../src/record-batch";
import { RecordBatchWalk } from "../src/record-walk";
import { recordArb } from "./record-arbitraries";

const producer = {
  producerId: 4242,
  producerEpoch: 3,
  baseSequence: 17,
  partitionLeaderEpoch: 9,
  attributes: 0,
};

/** Rebuilds `batch` (at `pos` of a larger buffer) keeping the records `keep` marks, stamping `horizonMs` if given. */
function rebuilt(batch: Buffer, keep: readonly boolean[], horizonMs: number | null): Buffer {
  const src = Buffer.concat([Buffer.alloc(5, 0xee), batch]);
  const out = Buffer.alloc(7 + rebuiltBatchBound(batch.length, keep.length), 0xaa);
  const rebuild = new BatchRebuild().begin(src, 5, out, 7);
  if (horizonMs !== null) rebuild.stampDeleteHorizon(horizonMs);
  const walk = new RecordBatchWalk().reset(src, 5, src.length);
  walk.nextBatch();
  for (let i = 0; walk.nextRecord(); i++) if (keep[i]) rebuild.keep(walk);
  const bytes = keep.some(Boolean) ? rebuild.seal() : rebuild.sealEmpty();
  return out.subarray(7, 7 + bytes);
}

describe("BatchRebuild", () => {
  it("keeps exactly the chosen records with their offsets and timestamps, the source's header fields, a valid CRC", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(recordArb, fc.boolean()), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        fc.option(fc.integer({ min: 0, max: 2 ** 43 }), { nil: null }),
        (marked, appendTime, horizonMs) => {
          const records = marked.map(([record]) => record);
          const keep = marked.map(([, kept]) => kept);
          const source = encodeRecordBatch(records, {
            baseOffset: 1000,
            appendTimeMs: 5_000,
            timestampType: appendTime ? "LogAppendTime" : "CreateTime",
            producer,
          });
          const before = decodeBatch(source);
          const out = rebuilt(source, keep, keep.some(Boolean) ? horizonMs : null);
          const after = decodeBatch(out);
          const kept = before.records.filter((_, i) => keep[i]);
          expect(batchCrcMatches(out, 0, out.length)).toBe(true);
          expect(after.records).toEqual(kept);
          const header = readBatchHeader(out, 0);
          expect(header).toMatchObject({
            baseOffset: 1000,
            sizeBytes: out.length,
            lastOffsetDelta: before.header.lastOffsetDelta,
            recordCount: kept.length,
            producerId: 4242,
            producerEpoch: 3,
            baseSequence: 17,
            partitionLeaderEpoch: 9,
            timestampType: before.header.timestampType,
          });
          const stamped = horizonMs !== null && kept.length > 0;
          expect(header.deleteHorizonMs).toBe(stamped ? horizonMs : null);
          const maxTimestamp = appendTime
            ? before.header.maxTimestamp
            : Math.max(...kept.map((r) => r.timestamp), -1);
          // An emptied batch keeps its source's max timestamp (Kafka's writeEmptyHeader).
          expect(header.maxTimestamp).toBe(kept.length === 0 ? before.header.maxTimestamp : maxTimestamp);
          if (kept.length === 0) expect(header.baseTimestamp).toBe(before.header.maxTimestamp);
          // Not stamped: the kept records' bytes are the source's own.
          if (!stamped && kept.length > 0) {
            expect(out.length).toBeLessThanOrEqual(source.length);
            expect(header.baseTimestamp).toBe(before.header.baseTimestamp);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses to seal a batch empty after keeping a record", () => {
    const source = encodeRecordBatch([{ key: Buffer.from("k"), value: Buffer.from("v") }], {
      baseOffset: 0,
      appendTimeMs: 1,
    });
    const out = Buffer.alloc(rebuiltBatchBound(source.length, 1));
    const rebuild = new BatchRebuild().begin(source, 0, out, 0);
    const walk = new RecordBatchWalk().reset(source);
    walk.nextBatch();
    walk.nextRecord();
    rebuild.keep(walk);
    expect(() => rebuild.sealEmpty()).toThrow(/after records were kept/);
  });
});
