import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BinaryRecordsError, decodeBinaryRecords, encodeBinaryRecords } from "../src/binary-records";
import type { ProduceFrameRecord as ProduceRecord } from "../src/frame-records";

const bytesOrNull = fc.option(
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  { nil: null },
);
const record: fc.Arbitrary<ProduceRecord> = fc
  .record({
    key: bytesOrNull,
    value: bytesOrNull,
    timestamp: fc.option(fc.nat({ max: 2 ** 45 }), { nil: undefined }),
    headers: fc.array(fc.record({ key: fc.string({ maxLength: 6 }), value: bytesOrNull }), { maxLength: 3 }),
  })
  .map((r) => (r.timestamp === undefined ? { key: r.key, value: r.value, headers: r.headers } : r));

describe("binary produce body", () => {
  it("round-trips any batch, keeping null apart from empty and an absent timestamp absent", () => {
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 8 }), (records) => {
        expect(decodeBinaryRecords(encodeBinaryRecords(records), 100)).toEqual(records);
      }),
    );
  });

  it("rejects truncated bodies, trailing bytes, bad lengths and counts out of range", () => {
    const body = encodeBinaryRecords([{ key: Buffer.from("k"), value: Buffer.from("value") }]);
    expect(() => decodeBinaryRecords(body.subarray(0, body.length - 1), 100)).toThrow(BinaryRecordsError);
    expect(() => decodeBinaryRecords(Buffer.concat([body, Buffer.from([0])]), 100)).toThrow(/trailing/);
    const badLength = Buffer.from(body);
    badLength.writeInt32LE(-7, 12);
    expect(() => decodeBinaryRecords(badLength, 100)).toThrow(/invalid length/);
    expect(() => decodeBinaryRecords(body, 0)).toThrow(/record count/);
    expect(() => decodeBinaryRecords(Buffer.from([0, 0, 0, 0]), 100)).toThrow(/record count 0/);
  });
});
