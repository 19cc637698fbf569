import "@lastword/record-batch/node-codecs";
import {
  batchCrcMatches,
  CODEC_IDS,
  decodeBatch,
  encodeRecordBatch,
  readBatchHeader,
} from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { firstAtOrAfter, keptBatch, passesWhole } from "./latest-batches";

const NOW = 1_700_000_000_000;
const record = (key: string, value: string | null, timestamp: number) => ({
  key: Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
  timestamp,
  headers: [],
});
/** Offsets 10..14: a, b, a tombstone of c, d, and a tombstone of e. */
const RECORDS = [
  record("a", "1", NOW - 50),
  record("b", "2", NOW - 40),
  record("c", null, NOW - 30),
  record("d", "4", NOW - 20),
  record("e", null, NOW - 10),
];
const batch = (options: { deleteHorizonMs?: number; compression?: number } = {}) =>
  encodeRecordBatch(RECORDS, { baseOffset: 10, appendTimeMs: NOW, ...options });
const seen = (bytes: Buffer) =>
  decodeBatch(bytes).records.map((r) => [r.offset, r.key?.toString(), r.value?.toString() ?? null]);

describe("the view's batch filter", () => {
  it("keeps only the listed offsets, as Kafka's cleaner rebuilds a batch: same offsets, a valid CRC", () => {
    const source = batch();
    const kept = keptBatch(source, 0, Float64Array.of(11, 12, 14), {
      end: 15,
      nowMs: NOW,
    })!;
    expect(seen(kept)).toEqual([
      [11, "b", "2"],
      [12, "c", null],
      [14, "e", null],
    ]);
    const header = readBatchHeader(kept, 0);
    expect(header.baseOffset).toBe(10);
    expect(header.lastOffset).toBe(14);
    expect(header.recordCount).toBe(3);
    expect(header.maxTimestamp).toBe(NOW - 10);
    expect(batchCrcMatches(kept, 0, kept.length)).toBe(true);
  });

  it("drops tombstones past their batch's delete horizon, but not the record just below the view's end", () => {
    const source = batch({ deleteHorizonMs: NOW - 1 });
    const rule = { end: 15, nowMs: NOW };
    expect(seen(keptBatch(source, 0, Float64Array.of(10, 12, 14), rule)!)).toEqual([
      [10, "a", "1"],
      [14, "e", null],
    ]);
    // Before the horizon both tombstones are live; a batch with every record kept goes as stored.
    const live = { ...rule, nowMs: NOW - 2 };
    expect(seen(keptBatch(source, 0, Float64Array.of(12, 14), live)!)).toEqual([
      [12, "c", null],
      [14, "e", null],
    ]);
    expect(passesWhole(source, 0, 5, live)).toBe(true);
    expect(passesWhole(source, 0, 5, rule)).toBe(false);
    expect(passesWhole(source, 0, 4, live)).toBe(false);
    // Nothing left: no batch at all.
    expect(keptBatch(source, 0, Float64Array.of(12), rule)).toBeNull();
  });

  it("inflates a compressed batch and sends the kept records plain", () => {
    const source = batch({ compression: CODEC_IDS.gzip });
    const kept = keptBatch(source, 0, Float64Array.of(13), {
      end: 20,
      nowMs: NOW,
    })!;
    expect(readBatchHeader(kept, 0).attributes & 7).toBe(0);
    expect(seen(kept)).toEqual([[13, "d", "4"]]);
  });

  it("finds the first offset at or after a fetch offset", () => {
    const offsets = Float64Array.of(3, 7, 9);
    expect([0, 3, 4, 9, 10].map((o) => firstAtOrAfter(offsets, o))).toEqual([0, 0, 1, 2, 3]);
  });
});
