import { proofDelays, purgeWaitMs, totalDelayMs } from "@lastword/erasure";
import { describe, expect, it } from "vitest";
import { closedBasesBelow } from "./erasure-guard";

describe("erasure deadline guarantee", () => {
  it("rewrites at once when min.compaction.lag.ms is 0, whatever the other settings", () => {
    expect(purgeWaitMs(0, 1_000, 10_000_000, 8_000)).toBe(0);
  });

  it("waits for min.compaction.lag.ms while the deadline leaves room for the proof", () => {
    expect(purgeWaitMs(60_000, 0, 10_000_000, 8_000)).toBe(60_000);
  });

  it("overrides min.compaction.lag.ms once only the proof's own time is left", () => {
    expect(purgeWaitMs(3_600_000, 1_000, 101_000, 8_000)).toBe(92_000);
    expect(purgeWaitMs(3_600_000, 1_000, 5_000, 8_000)).toBe(0);
  });

  it("counts every wait of the proof: ticks, rewrite, and with an object store the upload and shared objects", () => {
    const local = proofDelays({ tickMs: 5_000, passMs: 1_000 });
    expect(totalDelayMs(local)).toBe(11_000);
    const tiered = proofDelays({
      tickMs: 5_000,
      passMs: 1_000,
      objects: { syncIntervalMs: 1_000, consolidateAfterMs: 30_000 },
    });
    expect(totalDelayMs(tiered)).toBe(11_000 + 2_000 + 31_000);
    expect(tiered.map((d) => d.step)).toContain(
      "commit objects the key shares with other partitions are deleted once those partitions consolidate",
    );
  });

  it("rewrites every closed segment below the tombstone when no key filter narrows it", () => {
    const segments = [
      { baseOffset: 0, active: false },
      { baseOffset: 10, active: false },
      { baseOffset: 20, active: false },
      { baseOffset: 30, active: true },
    ];
    expect(closedBasesBelow(segments, 25)).toEqual([0, 10, 20]);
    expect(closedBasesBelow(segments, 10)).toEqual([0]);
    expect(closedBasesBelow(segments, 99)).toEqual([0, 10, 20]);
  });
});
