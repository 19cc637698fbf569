import { describe, expect, it } from "vitest";
import { topicMinutes } from "./topic-history";

const M = 60_000;
const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const sample = (
  partitionId: string,
  minute: number,
  logEndOffset: number,
  sizeBytes = 100,
  dirtyBytes = 10,
  fetchedRecords = 0,
) => ({
  partitionId,
  atMs: T0 + minute * M,
  sizeBytes,
  dirtyBytes,
  logEndOffset,
  fetchedRecords,
});

describe("topicMinutes", () => {
  it("sums the partitions per minute, their fetches, and records produced since the minute before", () => {
    expect(
      topicMinutes([
        sample("p1", 1, 15, 100, 10, 7),
        sample("p0", 0, 5, 100, 10, 3),
        sample("p1", 0, 10),
        sample("p0", 1, 9, 300, 50, 1),
      ]),
    ).toEqual([
      {
        at: "2026-12-01T10:00:00.000Z",
        sizeBytes: 200,
        liveBytes: 180,
        producedRecords: null,
        fetchedRecords: 3,
      },
      {
        at: "2026-12-01T10:01:00.000Z",
        sizeBytes: 400,
        liveBytes: 340,
        producedRecords: 9,
        fetchedRecords: 8,
      },
    ]);
  });

  it("counts a partition only over minutes sampled on both sides, and never a shrinking offset", () => {
    const minutes = topicMinutes([
      sample("p0", 0, 5),
      // p1 first reported at minute 1 (a new owner): its whole log is not a minute's produce.
      sample("p0", 1, 7),
      sample("p1", 1, 1000),
      // A gap: minute 3 has no minute 2 before it.
      sample("p0", 3, 20),
      sample("p1", 4, 900),
    ]);
    expect(minutes.map((m) => m.producedRecords)).toEqual([null, 2, null, null]);
    expect(topicMinutes([sample("p0", 0, 10), sample("p0", 1, 4)]).at(-1)?.producedRecords).toBe(0);
  });
});
