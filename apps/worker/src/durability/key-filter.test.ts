import { encodeRecordBatch } from "@lastword/logstore";
import { compressBatch } from "@lastword/record-batch";
import "@lastword/record-batch/node-codecs";
import { describe, expect, it } from "vitest";
import { buildKeyFilter, KeyFilterBuilder, mayHoldKey } from "./key-filter";

function batch(keys: readonly (string | null)[], baseOffset: number, codec = 0): Buffer {
  const records = keys.map((key) => ({
    key: key === null ? null : Buffer.from(key),
    value: Buffer.from("v"),
  }));
  const plain = encodeRecordBatch(records, { baseOffset, appendTimeMs: 0 });
  return codec === 0 ? plain : compressBatch(plain, codec);
}

describe("key filter", () => {
  it("holds every key of the segment, plain or compressed, and few others", () => {
    const keys = Array.from({ length: 2_000 }, (_, n) => `key-${n}`);
    const segment = Buffer.concat([
      batch(keys.slice(0, 1_000), 0),
      batch([...keys.slice(1_000), null], 1_000, 4),
    ]);
    const filter = buildKeyFilter(segment);
    for (const key of keys) expect(mayHoldKey(filter, Buffer.from(key))).toBe(true);
    const strangers = Array.from({ length: 2_000 }, (_, n) => Buffer.from(`other-${n}`));
    const falsePositives = strangers.filter((key) => mayHoldKey(filter, key)).length;
    expect(falsePositives).toBeLessThan(60);
  });

  it("holds binary keys, and an empty segment holds none", () => {
    const binary = Buffer.from([0, 255, 10, 13, 0]);
    const filter = buildKeyFilter(
      encodeRecordBatch([{ key: binary, value: null }], { baseOffset: 5, appendTimeMs: 0 }),
    );
    expect(mayHoldKey(filter, binary)).toBe(true);
    expect(mayHoldKey(buildKeyFilter(Buffer.alloc(0)), Buffer.from("k"))).toBe(false);
  });

  it("is the same built from chunks cut anywhere, and refuses a segment ending inside a batch", () => {
    const segment = Buffer.concat([
      batch(["a", "b", "c"], 0),
      batch(["d", null], 3, 4),
      batch(["e".repeat(300)], 5),
    ]);
    for (const cut of [1, 7, 12, 13, 100, segment.length]) {
      const builder = new KeyFilterBuilder();
      for (let at = 0; at < segment.length; at += cut) builder.push(segment.subarray(at, at + cut));
      expect(builder.finish().equals(buildKeyFilter(segment))).toBe(true);
    }
    const torn = new KeyFilterBuilder();
    torn.push(segment.subarray(0, segment.length - 1));
    expect(() => torn.finish()).toThrow("segment ends inside a batch (");
  });
});
