import { describe, expect, it } from "vitest";
import {
  type CompactionTimingConfig,
  computeCleanableRange,
  isCleaningDue,
  nextCleanDueAt,
  type SegmentSummary,
} from "../src/cleanable-range";

const MAX = Number.MAX_SAFE_INTEGER;
const config = (c: Partial<CompactionTimingConfig> = {}): CompactionTimingConfig => ({
  minCleanableDirtyRatio: 0.5,
  minCompactionLagMs: 0,
  maxCompactionLagMs: MAX,
  ...c,
});

/** Segments of 100 bytes at bases 0, 10, 20, …; the last is active. Timestamps: base × 1000. */
function segs(count: number, size = 100): SegmentSummary[] {
  return Array.from({ length: count }, (_, i) => ({
    baseOffset: i * 10,
    sizeBytes: size,
    firstTimestamp: i * 10_000 + 1,
    maxTimestamp: i * 10_000 + 9_000,
    active: i === count - 1,
  }));
}

describe("cleanable range (Kafka's cleanableOffsets / LogToClean)", () => {
  it("1. resets a checkpoint below the log start or past the log end to the log start", () => {
    const s = segs(4);
    expect(computeCleanableRange(s, 3, 10, 35, config(), 0).firstDirtyOffset).toBe(10);
    expect(computeCleanableRange(s, 99, 10, 35, config(), 0)).toMatchObject({
      firstDirtyOffset: 10,
      checkpointReset: true,
    });
    expect(computeCleanableRange(s, 20, 10, 35, config(), 0)).toMatchObject({
      firstDirtyOffset: 20,
      checkpointReset: false,
    });
  });

  it("2. ends at the active segment's base and counts clean and dirty bytes by segment", () => {
    const r = computeCleanableRange(segs(4), 10, 0, 35, config(), 0);
    expect(r).toMatchObject({ firstUncleanableOffset: 30, cleanBytes: 100, dirtyBytes: 200 });
    expect(r.dirtyRatio).toBeCloseTo(2 / 3);
  });

  it("3. stops at the first segment younger than min.compaction.lag.ms, on its base", () => {
    // Segment 10 holds records up to t=19 000; with a 5 s lag at t=23 000 it is too young.
    const r = computeCleanableRange(segs(4), 0, 0, 35, config({ minCompactionLagMs: 5_000 }), 23_000);
    expect(r.firstUncleanableOffset).toBe(10);
    expect(r.dirtyBytes).toBe(100);
  });

  it("4. counts a partially cleaned segment in both sums (Kafka's quirk) and rounds down the bound", () => {
    const r = computeCleanableRange(segs(4), 15, 0, 35, config(), 0);
    expect(r).toMatchObject({
      firstDirtyOffset: 15,
      firstUncleanableOffset: 30,
      cleanBytes: 200,
      dirtyBytes: 200,
    });
  });

  it("5. is due only when the dirty ratio is strictly above min.cleanable.dirty.ratio", () => {
    const s = segs(3); // clean 0..9, dirty 10..19, active 20
    const r = computeCleanableRange(s, 10, 0, 25, config(), 0);
    expect(r.dirtyRatio).toBe(0.5);
    expect(isCleaningDue(r, config({ minCleanableDirtyRatio: 0.5 }), null, 0)).toBe(false);
    expect(isCleaningDue(r, config({ minCleanableDirtyRatio: 0.49 }), null, 0)).toBe(true);
  });

  it("6. is due past max.compaction.lag.ms from the first dirty batch timestamp, whatever the ratio", () => {
    const s = segs(3);
    const c = config({ minCleanableDirtyRatio: 0.9, maxCompactionLagMs: 50_000 });
    // First dirty segment (base 10) has first batch timestamp 10 001: due once now − 50 000 > 10 001.
    expect(isCleaningDue(computeCleanableRange(s, 10, 0, 25, c, 60_001), c, null, 60_001)).toBe(false);
    const r = computeCleanableRange(s, 10, 0, 25, c, 60_002);
    expect(r.maxCompactionDelayMs).toBe(1);
    expect(isCleaningDue(r, c, null, 60_002)).toBe(true);
  });

  it("7. ignores first-batch timestamps ≤ 0 for max lag", () => {
    const s = segs(3).map((seg) => ({ ...seg, firstTimestamp: -1 }));
    const r = computeCleanableRange(s, 10, 0, 25, config({ maxCompactionLagMs: 1 }), 1e9);
    expect(r.maxCompactionDelayMs).toBe(0);
  });

  it("8. beyond Kafka: a passed delete horizon makes the partition due with nothing dirty", () => {
    const s = segs(3);
    const r = computeCleanableRange(s, 20, 0, 25, config(), 1_000);
    expect(r.dirtyBytes).toBe(0);
    expect(isCleaningDue(r, config(), 1_001, 1_000)).toBe(false);
    expect(isCleaningDue(r, config(), 1_000, 1_000)).toBe(true);
  });
});

describe("nextCleanDueAt", () => {
  const input = (c: CompactionTimingConfig, checkpoint: number, horizon: number | null = null) => ({
    segments: segs(3),
    checkpoint,
    logStartOffset: 0,
    logEndOffset: 25,
    config: c,
    earliestDeleteHorizonMs: horizon,
  });

  it("is null with no max lag, no horizon and nothing pending", () => {
    expect(nextCleanDueAt(input(config({ minCleanableDirtyRatio: 0.9 }), 10), 0)).toBeNull();
  });

  it("is null for a horizon at Long.MAX (delete.retention.ms = Long.MAX_VALUE)", () => {
    expect(nextCleanDueAt(input(config({ minCleanableDirtyRatio: 0.9 }), 10, MAX), 0)).toBeNull();
  });

  it("is the max-lag deadline (+1 ms, Kafka's strict comparison)", () => {
    const c = config({ minCleanableDirtyRatio: 0.9, maxCompactionLagMs: 50_000 });
    expect(nextCleanDueAt(input(c, 10), 0)).toBe(60_002);
  });

  it("is the earliest of max lag and a delete horizon", () => {
    const c = config({ minCleanableDirtyRatio: 0.9, maxCompactionLagMs: 50_000 });
    expect(nextCleanDueAt(input(c, 10, 30_000), 0)).toBe(30_000);
  });

  it("is now when a pass is already due", () => {
    expect(nextCleanDueAt(input(config({ minCleanableDirtyRatio: 0.1 }), 10), 77)).toBe(77);
  });

  it("includes the moment min lag releases enough dirty bytes to pass the ratio", () => {
    // Segment 10 reaches max timestamp 19 000; with a 5 s min lag it is cleanable from 24 000.
    const c = config({ minCleanableDirtyRatio: 0.4, minCompactionLagMs: 5_000 });
    expect(nextCleanDueAt(input(c, 10), 20_000)).toBe(24_000);
  });
});
