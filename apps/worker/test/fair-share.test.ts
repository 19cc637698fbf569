import { describe, expect, it } from "vitest";
import { freshClaimQuota } from "../src/fair-share";

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
