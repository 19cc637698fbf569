import { describe, expect, it } from "vitest";
import { erasurePreflight } from "./erasure-preflight";

const DAY = 86_400_000;

describe("erasure preflight", () => {
  it("passes a topic whose roll and max lag fit inside the deadline", () => {
    const p = erasurePreflight({
      config: { segmentMs: DAY, maxCompactionLagMs: 2 * DAY, deleteRetentionMs: DAY, minCompactionLagMs: 0 },
      deadlineMs: 30 * DAY,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
    });
    expect(p.worstCasePurgeMs).toBe(2 * DAY + 6_000);
    expect(p.worstCaseTombstoneGoneMs).toBe(3 * DAY + 12_000);
    expect(p.meetsDeadline).toBe(true);
    expect(p.fix).toBeNull();
  });

  it("flags Kafka's default max lag (never) and offers configs that fix it", () => {
    const p = erasurePreflight({
      config: {
        segmentMs: 7 * DAY,
        maxCompactionLagMs: Number.MAX_SAFE_INTEGER,
        deleteRetentionMs: DAY,
        minCompactionLagMs: 0,
      },
      deadlineMs: 30 * DAY,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
    });
    expect(p.meetsDeadline).toBe(false);
    const target = Math.floor((30 * DAY - 6_000) / 2);
    expect(p.fix).toEqual({ "max.compaction.lag.ms": String(target) });
    const fixed = erasurePreflight({
      config: {
        segmentMs: 7 * DAY,
        maxCompactionLagMs: target,
        deleteRetentionMs: DAY,
        minCompactionLagMs: 0,
      },
      deadlineMs: 30 * DAY,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
    });
    expect(fixed.meetsDeadline).toBe(true);
  });

  it("lowers segment.ms too when the roll alone is too slow", () => {
    const p = erasurePreflight({
      config: {
        segmentMs: 60_000,
        maxCompactionLagMs: 1_000,
        deleteRetentionMs: 1_000,
        minCompactionLagMs: 0,
      },
      deadlineMs: 20_000,
      schedulerTickMs: 1_000,
      passEstimateMs: 1_000,
    });
    expect(p.fix).toEqual({ "segment.ms": "9000" });
  });
});
