import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodePayload,
  encodePayload,
  parseSchema,
  readConfluentFrame,
  writeConfluentFrame,
} from "../src/index";
import { readMessageIndexes, writeMessageIndexes } from "../src/wire-format";

describe("Confluent's wire format and the payload codecs", () => {
  it("frames and unframes: magic byte 0, the id big-endian; unframed bytes are not frames", () => {
    const framed = writeConfluentFrame(258, Uint8Array.of(7, 8));
    expect([...framed]).toEqual([0, 0, 0, 1, 2, 7, 8]);
    expect(readConfluentFrame(framed)).toEqual({ schemaId: 258, payload: Uint8Array.of(7, 8) });
    expect(readConfluentFrame(Buffer.from("hello"))).toBeNull();
    expect(readConfluentFrame(Uint8Array.of(0, 1))).toBeNull();
  });

  it("message-index paths round-trip (fast-check); [0] is the single byte 0", () => {
    expect([...writeMessageIndexes([0])]).toEqual([0]);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 10 }),
        (indexes) => {
          const body = Uint8Array.of(42);
          const bytes = new Uint8Array([...writeMessageIndexes(indexes), ...body]);
          const read = readMessageIndexes(bytes);
          expect(read.indexes).toEqual(indexes);
          expect([...read.body]).toEqual([42]);
        },
      ),
    );
  });

  it("encodes a JSON value with each format's library and decodes it back; a value that does not fit is refused", () => {
    const cases = [
      {
        type: "AVRO" as const,
        schema:
          '{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}',
        value: { a: 1, b: "x" },
        bad: { a: "no" },
      },
      {
        type: "JSON" as const,
        schema: '{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}',
        value: { a: 1 },
        bad: { a: "no" },
      },
      {
        type: "PROTOBUF" as const,
        schema: 'syntax = "proto3"; message R { int32 a = 1; string b = 2; }',
        value: { a: 1, b: "x" },
        bad: { a: "no" },
      },
    ];
    for (const c of cases) {
      const parsed = parseSchema(c.type, c.schema, []);
      expect(decodePayload(parsed, encodePayload(parsed, c.value)), c.type).toEqual(c.value);
      expect(() => encodePayload(parsed, c.bad), c.type).toThrow(/does not match/);
    }
  });
});
