import { describe, expect, it } from "vitest";
import { formatBytes, parsePartitionStats } from "./partition-stats";

describe("parsePartitionStats", () => {
  const reported = {
    sizeBytes: 2048,
    segments: 2,
    logStartOffset: 0,
    logEndOffset: 12,
    dirtyRatio: 0.25,
    cleanable: false,
    maxCompactionDelayMs: 0,
    nextCleanDueAt: null,
    lastCleanAt: "2026-11-30T01:00:00.000Z",
    uncleanable: null,
    workerId: "w1",
    updatedAt: "2026-11-30T01:00:05.000Z",
  };

  it("keeps what the console shows from a worker report", () => {
    expect(parsePartitionStats(reported)).toMatchObject({
      sizeBytes: 2048,
      dirtyRatio: 0.25,
      logEndOffset: 12,
    });
  });

  it("yields null before the first report or for a shape it does not know", () => {
    expect(parsePartitionStats(null)).toBeNull();
    expect(parsePartitionStats({ sizeBytes: "big" })).toBeNull();
  });
});

describe("formatBytes", () => {
  it("uses binary units with one decimal above a KiB", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(3 * 1024 ** 3)).toBe("3.0 GiB");
  });
});
