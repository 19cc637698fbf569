import { describe, expect, it } from "vitest";
import { freshClaimQuota, shouldShed } from "../src/ownership/fair-share";

describe("fair-share claim quota", () => {
  it("lets the idle worker take a new topic while a loaded one stands back", () => {
    // 5 owned by the busy worker, 5 new partitions, 2 live workers: share = 5 each.
    expect(freshClaimQuota({ totalPartitions: 10, liveWorkers: 2, ownedByMe: 0 }, 256)).toBe(5);
    expect(freshClaimQuota({ totalPartitions: 10, liveWorkers: 2, ownedByMe: 5 }, 256)).toBe(0);
  });

  it("rounds the share up so every partition fits somewhere", () => {
    expect(freshClaimQuota({ totalPartitions: 3, liveWorkers: 2, ownedByMe: 1 }, 256)).toBe(1);
    expect(freshClaimQuota({ totalPartitions: 7, liveWorkers: 3, ownedByMe: 0 }, 256)).toBe(3);
  });

  it("treats a lone worker (or a snapshot without live workers) as owning everything", () => {
    expect(freshClaimQuota({ totalPartitions: 4, liveWorkers: 0, ownedByMe: 0 }, 256)).toBe(4);
    expect(freshClaimQuota({ totalPartitions: 4, liveWorkers: 1, ownedByMe: 1 }, 256)).toBe(3);
  });

  it("caps claims per tick and never goes negative", () => {
    expect(freshClaimQuota({ totalPartitions: 2000, liveWorkers: 1, ownedByMe: 0 }, 256)).toBe(256);
    expect(freshClaimQuota({ totalPartitions: 4, liveWorkers: 4, ownedByMe: 3 }, 256)).toBe(0);
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
