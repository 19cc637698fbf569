import { describe, expect, it } from "vitest";
import { barPercent, countdown, roughDuration, stageMarks } from "./erasure-stages";

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

  it("places marks on the received→deadline bar, clamped to it", () => {
    expect(barPercent(1_000, 11_000, 6_000)).toBe(50);
    expect(barPercent(1_000, 11_000, 0)).toBe(0);
    expect(barPercent(1_000, 11_000, 20_000)).toBe(100);
  });

  it("says a countdown in at most two units, and when it is overdue", () => {
    expect(roughDuration(2 * 86_400_000 + 3 * 3_600_000 + 59_000)).toBe("2 d 3 h");
    expect(countdown(12 * 60_000 + 5_000)).toBe("12 min 5 s left");
    expect(countdown(-5_000)).toBe("overdue by 5 s");
    expect(countdown(400)).toBe("400 ms left");
  });
});
