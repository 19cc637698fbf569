import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DataPlaneError } from "../src/errors";
import { produceRequestSchema, type WireProduceRecord, wireFetchedRecordSchema } from "../src/protocol";
import {
  decodeFetchedRecord,
  decodeProduceRecord,
  encodeFetchedRecord,
  encodeProduceRecord,
  type FetchedRecord,
} from "../src/record-codec";

const bytesOrNull = fc.option(
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  { nil: null },
);
const header = fc.record({ key: fc.string({ maxLength: 8 }), value: bytesOrNull });
const fetched = fc.record({
  offset: fc.nat(),
  timestamp: fc.nat(),
  key: bytesOrNull,
  value: bytesOrNull,
  headers: fc.array(header, { maxLength: 3 }),
});

// JSON.parse(JSON.stringify(x)) is what the HTTP hop does to the wire form.
const overTheWire = <T>(value: T): unknown => JSON.parse(JSON.stringify(value));

describe("record codec (JSON + base64 wire format)", () => {
  it("round-trips any record through JSON, keeping null distinct from empty", () => {
    fc.assert(
      fc.property(fetched, (record: FetchedRecord) => {
        const wire = wireFetchedRecordSchema.parse(overTheWire(encodeFetchedRecord(record)));
        expect(decodeFetchedRecord(wire)).toEqual(record);
      }),
    );
  });

  it("encodes an empty value as an empty string and a tombstone as null", () => {
    const empty = encodeProduceRecord({ key: Buffer.from("k"), value: Buffer.alloc(0) });
    const tombstone = encodeProduceRecord({ key: Buffer.from("k"), value: null });
    expect(empty.value).toBe("");
    expect(tombstone.value).toBeNull();
    const request = produceRequestSchema.parse(overTheWire({ records: [empty, tombstone] }));
    const [e, t] = request.records.map((r: WireProduceRecord) => decodeProduceRecord(r));
    expect(e!.value).toEqual(Buffer.alloc(0));
    expect(t!.value).toBeNull();
  });

  it("refuses an empty produce batch at the boundary", () => {
    expect(produceRequestSchema.safeParse({ records: [] }).success).toBe(false);
  });
});

describe("DataPlaneError", () => {
  it("marks only ownership and availability failures retriable by default", () => {
    expect(new DataPlaneError("NOT_OWNER", "moved").retriable).toBe(true);
    expect(new DataPlaneError("PARTITION_UNAVAILABLE", "opening").retriable).toBe(true);
    expect(new DataPlaneError("INVALID_RECORD", "null key").retriable).toBe(false);
    expect(new DataPlaneError("CORRUPT_SEGMENT", "crc").retriable).toBe(false);
  });
});
