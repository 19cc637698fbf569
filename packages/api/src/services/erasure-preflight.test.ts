import { describe, expect, it } from "vitest";
import { erasurePreflight } from "./erasure-preflight";

const DAY = 86_400_000;
const KAFKA_DEFAULTS = {
  segmentMs: 7 * DAY,
  maxCompactionLagMs: Number.MAX_SAFE_INTEGER,
  deleteRetentionMs: DAY,
  minCompactionLagMs: 0,
};
const OBJECTS = { syncIntervalMs: 1_000, consolidateAfterMs: 30_000 };

describe("erasure preflight", () => {
  it("meets a deadline on Kafka's defaults: segment.ms and max.compaction.lag.ms do not delay an erasure", () => {
    const p = erasurePreflight({
      config: KAFKA_DEFAULTS,
      deadlineMs: 30 * DAY,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
    });
    // A tick, the rewrite, the proving tick.
    expect(p.worstCasePurgeMs).toBe(11_000);
    expect(p.delays?.map((d) => d.ms)).toEqual([5_000, 1_000, 5_000]);
    expect(p.meetsDeadline).toBe(true);
    expect(p.fix).toBeNull();
    expect(p.explanation).toMatch(/^Old values are purged and proven gone within 11 s at worst/);
  });

  it("adds every wait of object storage: the upload and the shared commit objects' consolidation", () => {
    const p = erasurePreflight({
      config: KAFKA_DEFAULTS,
      deadlineMs: 60_000,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
      bucketKeepsVersionsMs: 0,
      objects: OBJECTS,
    });
    expect(p.worstCasePurgeMs).toBe(5_000 + 1_000 + 2_000 + 31_000 + 5_000);
    expect(p.meetsDeadline).toBe(true);
    const tight = erasurePreflight({
      ...{ config: KAFKA_DEFAULTS, bucketKeepsVersionsMs: 0, objects: OBJECTS },
      deadlineMs: 30_000,
    });
    expect(tight.meetsDeadline).toBe(false);
    expect(tight.fix).toBeNull();
    expect(tight.explanation).toMatch(/shorter than what a proof takes at worst/);
  });

  it("counts min.compaction.lag.ms, and offers a value that fits when it would miss the deadline", () => {
    const p = erasurePreflight({
      config: { ...KAFKA_DEFAULTS, minCompactionLagMs: 40 * DAY },
      deadlineMs: 30 * DAY,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
    });
    expect(p.worstCasePurgeMs).toBe(40 * DAY + 11_000);
    expect(p.meetsDeadline).toBe(false);
    // What the deadline leaves after the proof's waits, rounded down to whole days.
    expect(p.fix).toEqual({ "min.compaction.lag.ms": String(29 * DAY) });
    expect(p.explanation).toMatch(/overrides min\.compaction\.lag\.ms for its key/);
    const fixed = erasurePreflight({
      config: { ...KAFKA_DEFAULTS, minCompactionLagMs: 29 * DAY },
      deadlineMs: 30 * DAY,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
    });
    expect(fixed.meetsDeadline).toBe(true);
  });

  it("keeps the tombstone delete.retention.ms after the purge", () => {
    const p = erasurePreflight({
      config: { ...KAFKA_DEFAULTS, deleteRetentionMs: 3_000 },
      deadlineMs: 30 * DAY,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
    });
    expect(p.worstCaseTombstoneGoneMs).toBe(11_000 + 3_000 + 6_000);
  });

  it("adds what the object store's bucket keeps of deleted objects, and refuses any deadline when it keeps them forever", () => {
    const base = {
      config: KAFKA_DEFAULTS,
      deadlineMs: 30 * DAY,
      schedulerTickMs: 5_000,
      passEstimateMs: 1_000,
      objects: OBJECTS,
    };
    const proof = 44_000;
    const unversioned = erasurePreflight({ ...base, bucketKeepsVersionsMs: 0 });
    expect([unversioned.meetsDeadline, unversioned.worstCasePurgeMs]).toEqual([true, proof]);
    const expiring = erasurePreflight({ ...base, bucketKeepsVersionsMs: 7 * DAY });
    expect([expiring.meetsDeadline, expiring.worstCasePurgeMs]).toEqual([true, 7 * DAY + proof]);
    const late = erasurePreflight({ ...base, bucketKeepsVersionsMs: 40 * DAY });
    expect(late.meetsDeadline).toBe(false);
    const forever = erasurePreflight({ ...base, bucketKeepsVersionsMs: null });
    expect(forever.meetsDeadline).toBe(false);
    expect(forever.fix).toBeNull();
    expect(forever.bucketKeepsVersionsMs).toBeNull();
    expect(forever.explanation).toMatch(/keeps old versions of deleted objects with no expiry/);
  });
});
