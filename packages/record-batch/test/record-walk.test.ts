import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBatchRecords, encodeRecordBatch, type LogRecord } from "../src/record-batch";
import { batchesBefore, forEachHeader, RecordBatchFormatError, RecordBatchWalk } from "../src/record-walk";
import { recordArb } from "./record-arbitraries";

/** What the walk sees, as the log store's decoder would return it. */
function walked(bytes: Uint8Array): LogRecord[] {
  const walk = new RecordBatchWalk().reset(bytes);
  const out: LogRecord[] = [];
  const slice = (start: number, end: number) => (start < 0 ? null : Buffer.from(bytes.subarray(start, end)));
  while (walk.nextBatch()) {
    while (walk.nextRecord()) {
      const headers: { key: string; value: Buffer | null }[] = [];
      forEachHeader(bytes, walk.headersStart, walk.headerCount, walk.recordEnd, (ns, ne, vs, ve) => {
        headers.push({ key: Buffer.from(bytes.subarray(ns, ne)).toString(), value: slice(vs, ve) });
      });
      out.push({
        offset: walk.offset,
        timestamp: walk.timestamp,
        key: slice(walk.keyStart, walk.keyEnd),
        value: slice(walk.valueStart, walk.valueEnd),
        headers,
      });
    }
  }
  return out;
}

describe("RecordBatchWalk", () => {
  it("walks every record of every batch exactly as the decoder decodes them, on a plain Uint8Array", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(recordArb, { maxLength: 6 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (batches, appendTime) => {
          let base = 0;
          const encoded = batches.map((records) => {
            const batch = encodeRecordBatch(records, {
              baseOffset: base,
              appendTimeMs: 77,
              timestampType: appendTime ? "LogAppendTime" : "CreateTime",
            });
            base += records.length + 1;
            return batch;
          });
          const joined = Buffer.concat(encoded);
          const expected: LogRecord[] = [];
          for (let pos = 0; pos < joined.length; pos += joined.readInt32BE(pos + 8) + 12)
            decodeBatchRecords(joined, pos, expected, 0, Number.POSITIVE_INFINITY);
          // A copy in a plain Uint8Array at an offset of a larger buffer: no Buffer methods to lean on.
          const plain = new Uint8Array(joined.length + 9).subarray(9);
          plain.set(joined);
          expect(walked(plain)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses lengths past a record, a batch or the range, and batches that are not uncompressed v2", () => {
    const batch = encodeRecordBatch([{ key: Buffer.from("key"), value: Buffer.from("value") }], {
      baseOffset: 0,
      appendTimeMs: 5,
    });
    const walkAll = (bytes: Uint8Array) => () => walked(bytes);
    expect(walkAll(batch.subarray(0, 70))).toThrow(RecordBatchFormatError);
    const badValue = Buffer.from(batch);
    badValue[badValue.indexOf("value") - 1] = 0x7e; // value length 63: past the record
    expect(walkAll(badValue)).toThrow(/overruns/);
    const longBatch = Buffer.from(batch);
    longBatch.writeInt32BE(longBatch.readInt32BE(8) + 100, 8);
    expect(walkAll(longBatch)).toThrow(/overruns/);
    const extraCount = Buffer.from(batch);
    extraCount.writeInt32BE(2, 57); // a record count the bytes do not hold
    expect(walkAll(extraCount)).toThrow(/overruns/);
    const compressed = Buffer.from(batch);
    compressed[22] = 1;
    expect(walkAll(compressed)).toThrow(/not uncompressed RecordBatch v2/);
    const magic1 = Buffer.from(batch);
    magic1[16] = 1;
    expect(walkAll(magic1)).toThrow(/not uncompressed RecordBatch v2/);
  });

  it("batchesBefore: the leading batches below an offset, from their headers alone", () => {
    const batchOf = (baseOffset: number, n: number) =>
      encodeRecordBatch(
        Array.from({ length: n }, () => ({ key: Buffer.from("k"), value: null })),
        { baseOffset, appendTimeMs: 0 },
      );
    const first = batchOf(10, 3);
    const bytes = Buffer.concat([first, batchOf(20, 5)]);
    expect(batchesBefore(bytes, 20)).toEqual({ length: first.length, nextOffset: 13, records: 3 });
    expect(batchesBefore(bytes, 21)).toEqual({ length: bytes.length, nextOffset: 25, records: 8 });
    expect(batchesBefore(bytes, 10)).toEqual({ length: 0, nextOffset: -1, records: 0 });
  });
});
