import { type AppendRecord, decodeBatch, encodeRecordBatch, rebuiltBatchBound } from "@lastword/record-batch";
import { crc32c } from "@node-rs/crc32";
import { describe, expect, it } from "vitest";
import { FilterCounters, filterBatch, type RetainRule } from "../src/cleaner-batch";
import { CleanerTxns } from "../src/cleaner-txns";
import { OffsetMap } from "../src/offset-map";

const b = (s: string) => Buffer.from(s);

/** Independent check of a written batch: length field and CRC-32C over attributes..end. */
function wellFormed(buf: Buffer): boolean {
  return buf.readInt32BE(8) + 12 === buf.length && crc32c(buf.subarray(21)) === buf.readUInt32BE(17);
}

function batch(baseOffset: number, records: AppendRecord[]): Buffer {
  return encodeRecordBatch(records, { baseOffset, appendTimeMs: 1_000 });
}

function ruleWith(latest: Record<string, number>, overrides: Partial<RetainRule> = {}): RetainRule {
  const map = new OffsetMap(24 * 101);
  map.clear(7);
  for (const [key, offset] of Object.entries(latest)) map.put(b(key), 0, key.length, offset);
  const top = Math.max(-1, ...Object.values(latest));
  return {
    map,
    latestOffset: top,
    nowMs: 5_000,
    newDeleteHorizonMs: 9_000,
    roundEndOffset: 1e9,
    producerLastBatchEnds: new Map(),
    txns: new CleanerTxns([], false),
    ...overrides,
  };
}

function run(src: Buffer, rule: RetainRule, counters = new FilterCounters()) {
  const out = Buffer.alloc(rebuiltBatchBound(src.length, 100));
  const { bytes, maxTimestamp } = filterBatch(src, 0, out, 0, rule, counters);
  const written = out.subarray(0, bytes);
  return { written, maxTimestamp, counters, decoded: bytes > 0 ? decodeBatch(written) : null };
}

describe("cleaner batch filter", () => {
  it("copies a batch whose records all survive byte for byte", () => {
    const src = batch(10, [
      { key: b("a"), value: b("1"), timestamp: 100 },
      { key: b("b"), value: b("2"), timestamp: 200 },
    ]);
    const { written } = run(src, ruleWith({ a: 10, b: 11 }));
    expect(written.equals(src)).toBe(true);
  });

  it("drops superseded records, keeps base and last offsets, timestamps and a valid CRC", () => {
    const src = batch(20, [
      { key: b("a"), value: b("1"), timestamp: 100 },
      { key: b("b"), value: b("2"), timestamp: 300 },
      { key: b("c"), value: b("3"), timestamp: 200 },
    ]);
    const { written, decoded, counters, maxTimestamp } = run(src, ruleWith({ a: 20, b: 99, c: 99 }));
    expect(wellFormed(written)).toBe(true);
    expect(decoded!.header.baseOffset).toBe(20);
    expect(decoded!.header.lastOffset).toBe(22);
    expect(decoded!.records.map((r) => [r.offset, r.key!.toString(), r.timestamp])).toEqual([[20, "a", 100]]);
    expect(maxTimestamp).toBe(100);
    expect(counters.recordsRemoved).toBe(2);
  });

  it("stamps pass start + delete.retention.ms on a batch keeping a tombstone, record timestamps intact", () => {
    const src = batch(0, [
      { key: b("a"), value: null, timestamp: 123 },
      { key: b("b"), value: b("x"), timestamp: 456 },
    ]);
    const { written, decoded, counters } = run(src, ruleWith({ a: 0, b: 1 }));
    expect(wellFormed(written)).toBe(true);
    expect(decoded!.header.deleteHorizonMs).toBe(9_000);
    expect(decoded!.records.map((r) => [r.offset, r.value, r.timestamp])).toEqual([
      [0, null, 123],
      [1, b("x"), 456],
    ]);
    expect(counters.earliestDeleteHorizonMs).toBe(9_000);
  });

  it("keeps a stamped tombstone before its horizon unchanged and removes it from the horizon on", () => {
    const stamped = run(batch(0, [{ key: b("a"), value: null }]), ruleWith({ a: 0 })).written;
    const before = run(stamped, ruleWith({ a: 0 }, { nowMs: 8_999 }));
    expect(before.written.equals(stamped)).toBe(true);
    const at = run(stamped, ruleWith({ a: 0 }, { nowMs: 9_000 }));
    expect(at.written.length).toBe(0);
    expect(at.counters.tombstonesRemoved).toBe(1);
  });

  it("treats an empty value as a value, never as a tombstone", () => {
    const src = batch(0, [{ key: b("a"), value: Buffer.alloc(0) }]);
    const { written, decoded } = run(src, ruleWith({ a: 0 }, { nowMs: 1e12 }));
    expect(written.equals(src)).toBe(true);
    expect(decoded!.header.deleteHorizonMs).toBeNull();
  });

  it("drops and counts keyless records inside the mapped range, keeps everything beyond it", () => {
    const src = batch(5, [
      { key: null, value: b("x") },
      { key: b("a"), value: b("old") },
      { key: null, value: b("y") },
    ]);
    const counters = new FilterCounters();
    const { decoded } = run(src, ruleWith({ a: 9 }, { latestOffset: 6 }), counters);
    expect(decoded!.records.map((r) => r.offset)).toEqual([7]);
    expect(counters.keylessRemoved).toBe(1);
  });

  it("leaves an empty batch when the batch ending the round loses every record, else drops it", () => {
    const src = batch(30, [
      { key: b("a"), value: b("1"), timestamp: 700 },
      { key: b("a"), value: b("2"), timestamp: 800 },
    ]);
    const dropped = run(src, ruleWith({ a: 99 }));
    expect(dropped.written.length).toBe(0);
    const kept = run(src, ruleWith({ a: 99 }, { roundEndOffset: 32 }));
    expect(wellFormed(kept.written)).toBe(true);
    expect(kept.decoded!.header.recordCount).toBe(0);
    expect(kept.decoded!.header.lastOffset).toBe(31);
    expect(kept.decoded!.header.maxTimestamp).toBe(800);
  });
});
