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
    // Half of what the deadline leaves after a tick and a pass, rounded down to whole days.
    const target = 14 * DAY;
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

  it("rounds a suggestion down to the largest unit that keeps most of the bound", () => {
    const fixFor = (deadlineMs: number) =>
      erasurePreflight({
        config: {
          segmentMs: 7 * DAY,
          maxCompactionLagMs: 7 * DAY,
          deleteRetentionMs: 0,
          minCompactionLagMs: 0,
        },
        deadlineMs,
        schedulerTickMs: 5_000,
        passEstimateMs: 1_000,
      }).fix;
    // (1 d − 6 s) / 2 is just under 12 h: 11 h, not 43197000 ms.
    expect(fixFor(DAY)).toEqual({ "max.compaction.lag.ms": "39600000", "segment.ms": "39600000" });
    // (3 d − 6 s) / 2 is just under 1.5 d: whole days would give up a third, so 35 h.
    expect(fixFor(3 * DAY)).toEqual({ "max.compaction.lag.ms": "126000000", "segment.ms": "126000000" });
  });

  it("adds what the object store's bucket keeps of deleted objects, and refuses any deadline when it keeps them forever", () => {
    const config = {
      segmentMs: DAY,
      maxCompactionLagMs: 2 * DAY,
      deleteRetentionMs: DAY,
      minCompactionLagMs: 0,
    };
    const base = { config, deadlineMs: 30 * DAY, schedulerTickMs: 5_000, passEstimateMs: 1_000 };
    const unversioned = erasurePreflight({ ...base, bucketKeepsVersionsMs: 0 });
    expect([unversioned.meetsDeadline, unversioned.worstCasePurgeMs]).toEqual([true, 2 * DAY + 6_000]);
    const expiring = erasurePreflight({ ...base, bucketKeepsVersionsMs: 7 * DAY });
    expect([expiring.meetsDeadline, expiring.worstCasePurgeMs]).toEqual([true, 9 * DAY + 6_000]);
    const late = erasurePreflight({ ...base, bucketKeepsVersionsMs: 40 * DAY });
    expect(late.meetsDeadline).toBe(false);
    const forever = erasurePreflight({ ...base, bucketKeepsVersionsMs: null });
    expect(forever.meetsDeadline).toBe(false);
    expect(forever.fix).toBeNull();
    expect(forever.bucketKeepsVersionsMs).toBeNull();
    expect(forever.explanation).toMatch(/keeps old versions of deleted objects with no expiry/);
  });
});
