import { describe, expect, it } from "vitest";
import { stageMarks } from "../src/index";

const t = (s: number) => new Date(Date.UTC(2026, 10, 30, 0, 0, s)).toISOString();

describe("erasure stages", () => {
  it("marks a stage only once every tombstone reached it, at the latest of their times", () => {
    const marks = stageMarks({
      receivedAt: t(0),
      closedAt: null,
      tombstones: [
        { writtenAt: t(1), purgedAt: t(9), expiredAt: null },
        { writtenAt: t(2), purgedAt: t(7), expiredAt: t(20) },
      ],
    });
    expect(marks.map((m) => [m.stage, m.at])).toEqual([
      ["received", t(0)],
      ["tombstoned", t(2)],
      ["purged", t(9)],
      ["tombstone-expired", null],
      ["closed", null],
    ]);
  });

  it("reaches no stage past received without tombstones", () => {
    const marks = stageMarks({ receivedAt: t(0), closedAt: null, tombstones: [] });
    expect(marks.filter((m) => m.at !== null).map((m) => m.stage)).toEqual(["received"]);
  });
});
