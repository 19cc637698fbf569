import { describe, expect, it } from "vitest";
import { dirtyRatioHistory } from "./dirty-ratio-history";

const run = (startedAt: number, finishedAt: number | null, before: number | null, after: number | null) => ({
  startedAt: new Date(startedAt).toISOString(),
  finishedAt: finishedAt === null ? null : new Date(finishedAt).toISOString(),
  dirtyRatioBefore: before,
  dirtyRatioAfter: after,
});

describe("dirtyRatioHistory", () => {
  it("draws each pass as the ratio it saw then the ratio it left, oldest first, then now", () => {
    // Runs come newest first from the API.
    const points = dirtyRatioHistory([run(5_000, 5_200, 0.7, 0), run(1_000, 1_100, 0.9, 0.1)], {
      ratio: 0.3,
      at: 9_000,
    });
    expect(points).toEqual([
      { at: 1_000, ratio: 0.9, kind: "before pass" },
      { at: 1_100, ratio: 0.1, kind: "after pass" },
      { at: 5_000, ratio: 0.7, kind: "before pass" },
      { at: 5_200, ratio: 0, kind: "after pass" },
      { at: 9_000, ratio: 0.3, kind: "now" },
    ]);
  });

  it("skips what a run did not record (a failed or running pass has no after)", () => {
    const points = dirtyRatioHistory([run(2_000, null, 0.6, null), run(1_000, 1_500, null, null)], null);
    expect(points).toEqual([{ at: 2_000, ratio: 0.6, kind: "before pass" }]);
  });

  it("clamps ratios into 0–1 and ignores a current report older than the last pass", () => {
    const points = dirtyRatioHistory([run(1_000, 2_000, 1.4, -0.1)], { ratio: 0.5, at: 1_500 });
    expect(points.map((p) => p.ratio)).toEqual([1, 0]);
  });
});
