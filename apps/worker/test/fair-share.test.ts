import { describe, expect, it } from "vitest";
import { freshClaimQuota, shouldShed } from "../src/ownership/fair-share";

describe("fair-share claim quota", () => {
  // [why, totalPartitions, liveWorkers, ownedByMe, quota with a claim cap of 256]
  it.each([
    // 5 owned by the busy worker, 5 new partitions, 2 live workers: share = 5 each.
    ["the idle worker takes a new topic", 10, 2, 0, 5],
    ["a loaded worker stands back", 10, 2, 5, 0],
    ["the share rounds up so every partition fits somewhere", 3, 2, 1, 1],
    ["the share rounds up (3 workers)", 7, 3, 0, 3],
    ["a snapshot without live workers owns everything", 4, 0, 0, 4],
    ["a lone worker owns everything", 4, 1, 1, 3],
    ["claims per tick are capped", 2000, 1, 0, 256],
    ["the quota never goes negative", 4, 4, 3, 0],
  ])("%s", (_why, totalPartitions, liveWorkers, ownedByMe, quota) => {
    expect(freshClaimQuota({ totalPartitions, liveWorkers, ownedByMe }, 256)).toBe(quota);
  });
});

describe("shedding for balance", () => {
  const load = { totalPartitions: 6, liveWorkers: 2, ownedByMe: 6, claimable: 0, minOwnedByLiveWorker: 0 };

  it("hands back while above the fair share and another live worker holds two fewer", () => {
    expect(shouldShed(load)).toBe(true);
    expect(shouldShed({ ...load, ownedByMe: 4, minOwnedByLiveWorker: 2 })).toBe(true);
  });

  it("stops at the fair share, within one of the lightest worker, or while partitions wait unclaimed", () => {
    expect(shouldShed({ ...load, ownedByMe: 3, minOwnedByLiveWorker: 3 })).toBe(false);
    expect(shouldShed({ ...load, totalPartitions: 7, ownedByMe: 4, minOwnedByLiveWorker: 3 })).toBe(false);
    expect(shouldShed({ ...load, claimable: 1 })).toBe(false);
    expect(shouldShed({ ...load, liveWorkers: 1 })).toBe(false);
  });
});
