import { describe, expect, it } from "vitest";
import { cleanerPriority, cleanPartitionJob, workerQueueNames } from "../src/catalog";

describe("job catalog", () => {
  it("orders overdue work first, then requested passes, then by dirty ratio descending", () => {
    const lag = cleanerPriority("max-compaction-lag", 0.1);
    const horizon = cleanerPriority("delete-horizon", 0);
    const requested = cleanerPriority("requested", 0);
    const dirty90 = cleanerPriority("dirty-ratio", 0.9);
    const dirty60 = cleanerPriority("dirty-ratio", 0.6);
    expect(lag).toBe(horizon);
    expect(lag).toBeLessThan(requested);
    expect(requested).toBeLessThan(dirty90);
    expect(dirty90).toBeLessThan(dirty60);
    expect(cleanerPriority("dirty-ratio", 1)).toBeGreaterThanOrEqual(1);
    expect(cleanerPriority("dirty-ratio", 0)).toBeLessThanOrEqual(2 ** 21);
  });

  it("keys a cleaner job by its partition so two passes never overlap", () => {
    const payload = cleanPartitionJob.schema.parse({
      partitionId: "p1",
      epoch: 3,
      reason: "dirty-ratio",
      dirtyRatio: 0.7,
    });
    expect(cleanPartitionJob.jobId(payload)).toBe("clean-p1");
    expect(
      cleanPartitionJob.schema.safeParse({ partitionId: "p1", epoch: 3, reason: "soon", dirtyRatio: 0.7 })
        .success,
    ).toBe(false);
  });

  it("names per-worker queues without BullMQ's separator", () => {
    expect(workerQueueNames("w1")).toEqual({ scheduler: "scheduler.w1", cleaner: "cleaner.w1" });
    expect(() => workerQueueNames("a:b")).toThrow(/must not contain/);
  });
});
