import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readStruct, sizeStruct, writeStruct } from "../src/codec";
import { compileFields } from "../src/compile";
import { ApiKey, decodeRequest, encodeRequest, KafkaProtocolError } from "../src/index";
import { Reader, uvarintSize, Writer } from "../src/primitives";
import type { FieldSchema } from "../src/schema-types";

describe("primitives", () => {
  it("unsigned varints round-trip at every length boundary up to int32, and uvarintSize matches the bytes", () => {
    for (const value of [
      0,
      1,
      127,
      128,
      16_383,
      16_384,
      2_097_151,
      2_097_152,
      268_435_455,
      268_435_456,
      2 ** 31 - 1,
    ]) {
      const w = new Writer(uvarintSize(value));
      w.uvarint(value);
      expect(w.pos).toBe(uvarintSize(value));
      const r = new Reader(w.buf);
      expect(r.uvarint()).toBe(value);
      expect(r.remaining).toBe(0);
    }
  });

  it("types no current schema uses (uint16, uint32, float64) still encode, decode and range-check", () => {
    const fields = [
      { name: "port", type: "uint16", versions: "0+" },
      { name: "count", type: "uint32", versions: "0+" },
      { name: "ratio", type: "float64", versions: "0+" },
      { name: "ids", type: "[]uint32", versions: "0+" },
    ] as const satisfies readonly FieldSchema[];
    for (const flexible of [false, true]) {
      const plan = compileFields(fields, 0, flexible);
      const value = { port: 65_535, count: 4_294_967_295, ratio: -0.5, ids: [0, 7] };
      const w = new Writer(sizeStruct(plan, value));
      writeStruct(w, plan, value);
      expect(w.pos).toBe(w.buf.length);
      expect(readStruct(new Reader(w.buf), plan)).toEqual(value);
      for (const bad of [{ port: -1 }, { port: 65_536 }, { count: 2 ** 32 }, { ratio: "1" }]) {
        const size = sizeStruct(plan, bad);
        expect(() => writeStruct(new Writer(size), plan, bad)).toThrow(KafkaProtocolError);
      }
    }
  });

  it("Produce v9 (flexible) carries the record set as compact bytes: uvarint(length + 1), no copy on decode", () => {
    const records = Buffer.from("0102030405", "hex");
    const frame = encodeRequest(
      ApiKey.Produce,
      9,
      { correlationId: 2, clientId: "c" },
      { acks: -1, timeoutMs: 1000, topicData: [{ name: "t", partitionData: [{ index: 0, records }] }] },
    );
    // header v2 (client id int16 length, tags), null transactional id (0), acks, timeout, 1 topic
    // (02), name "t" (02 74), 1 partition (02), index, records (06 + 5 bytes), partition tags,
    // topic tags, body tags.
    const expected =
      "0000 0009 00000002 0001 63 00 00 ffff 000003e8 02 0274 02 00000000 06 0102030405 00 00 00";
    expect(frame.subarray(4).toString("hex")).toBe(expected.replaceAll(" ", ""));
    const decoded = decodeRequest(frame.subarray(4));
    if (decoded.apiKey !== ApiKey.Produce) throw new Error("expected Produce");
    const decodedRecords = decoded.body.topicData[0]?.partitionData[0]?.records;
    expect(decodedRecords).toEqual(records);
    expect(decodedRecords?.buffer).toBe(frame.buffer);
  });
});

describe("package boundary", () => {
  it("src imports only node built-ins and its own files (the codec stays pure)", () => {
    const src = path.join(import.meta.dirname, "../src");
    const files = fs.readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    // The generated schema module is part of src and held to the same rule.
    expect(files).toContain(path.join("generated", "schemas.ts"));
    for (const file of files) {
      const text = fs.readFileSync(path.join(src, file), "utf8");
      for (const [, specifier] of text.matchAll(/from "([^"]+)"/g)) {
        expect(specifier?.startsWith(".") || specifier?.startsWith("node:"), `${file}: ${specifier}`).toBe(
          true,
        );
      }
    }
  });
});
