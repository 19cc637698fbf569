import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBatchRecords, encodeRecordBatch, type LogRecord } from "../src/record-batch";
import { recordSkeleton } from "../src/record-skeleton";
import { recordArb } from "./record-arbitraries";

const decoded = (batch: Uint8Array): LogRecord[] => {
  const out: LogRecord[] = [];
  decodeBatchRecords(Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength), 0, out, 0, Infinity);
  return out;
};

describe("recordSkeleton", () => {
  it("keeps every record's key, headers, offset, timestamp and null-ness of its value, and only empties values", () => {
    fc.assert(
      fc.property(
        fc.array(recordArb, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        (records, appendTime) => {
          const batch = encodeRecordBatch(records, {
            baseOffset: 40,
            appendTimeMs: 77,
            timestampType: appendTime ? "LogAppendTime" : "CreateTime",
          });
          // At an offset of a larger buffer, as a pool thread's reply may be.
          const plain = new Uint8Array(batch.length + 5).subarray(5);
          plain.set(batch);
          const skeleton = recordSkeleton(plain)!;
          expect(skeleton).not.toBeNull();
          const expected = decoded(batch).map((r) => ({
            ...r,
            value: r.value === null ? null : Buffer.alloc(0),
          }));
          expect(decoded(skeleton)).toEqual(expected);
          // The header is the batch's but for its length and CRC: its fields (producer, counts, times) are kept.
          expect(Buffer.from(skeleton.subarray(12, 17))).toEqual(batch.subarray(12, 17));
          expect(Buffer.from(skeleton.subarray(21, 61))).toEqual(batch.subarray(21, 61));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is small when the values are large: 128 records of 64 KiB come back in a few KiB", () => {
    const records = Array.from({ length: 128 }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.alloc(64 << 10, 1),
      headers: [{ key: "h", value: Buffer.from("v") }],
      timestamp: 1_000 + i,
    }));
    const batch = encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 1 });
    const skeleton = recordSkeleton(batch)!;
    expect(skeleton.length).toBeLessThan(4 << 10);
    expect(decoded(skeleton).map((r) => [r.key?.toString(), r.timestamp, r.headers[0]?.key])).toEqual(
      records.map((r) => [r.key.toString(), r.timestamp, "h"]),
    );
  });

  it("answers null for records that do not walk, so the whole copy is kept and refused as it always was", () => {
    const batch = encodeRecordBatch([{ key: Buffer.from("k"), value: Buffer.from("value"), timestamp: 1 }], {
      baseOffset: 0,
      appendTimeMs: 1,
    });
    // The record's length varint made to claim more than the batch holds.
    const cut = Buffer.from(batch);
    cut[61] = 0x7e;
    expect(recordSkeleton(cut)).toBeNull();
  });
});
