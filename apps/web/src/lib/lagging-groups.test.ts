import { describe, expect, it } from "vitest";
import { laggingPastRetention } from "./lagging-groups";

const DAY = 86_400_000;

describe("laggingPastRetention", () => {
  it("names each group and topic whose oldest unread record is past delete.retention.ms, longest first", () => {
    const lagging = laggingPastRetention([
      {
        group: "billing",
        topics: [
          { topic: "users", deleteRetentionMs: DAY, partitions: [{ lagMs: 2 * DAY }, { lagMs: 10 }] },
          { topic: "orders", deleteRetentionMs: 3 * DAY, partitions: [{ lagMs: 2 * DAY }] },
        ],
      },
      {
        group: "search",
        topics: [{ topic: "users", deleteRetentionMs: DAY, partitions: [{ lagMs: 5 * DAY }] }],
      },
      // No committed position: no lag to judge.
      { group: "fresh", topics: [{ topic: "users", deleteRetentionMs: DAY, partitions: [{ lagMs: null }] }] },
      // Exactly at the retention is not past it.
      { group: "edge", topics: [{ topic: "users", deleteRetentionMs: DAY, partitions: [{ lagMs: DAY }] }] },
    ]);
    expect(lagging).toEqual([
      { group: "search", topic: "users", lagMs: 5 * DAY, deleteRetentionMs: DAY },
      { group: "billing", topic: "users", lagMs: 2 * DAY, deleteRetentionMs: DAY },
    ]);
  });
});
