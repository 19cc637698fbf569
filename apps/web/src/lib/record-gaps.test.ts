import { describe, expect, it } from "vitest";
import { describeGap, withGaps } from "./record-gaps";

const at = (...offsets: number[]) => offsets.map((offset) => ({ offset }));

describe("withGaps", () => {
  it("adds nothing between consecutive offsets", () => {
    expect(withGaps(at(0, 1, 2), 0, 0).map((row) => row.kind)).toEqual(["record", "record", "record"]);
  });

  it("marks the run of offsets missing between two records", () => {
    expect(withGaps(at(11, 58), 11, 0)).toEqual([
      { kind: "record", record: { offset: 11 } },
      { kind: "gap", fromOffset: 12, toOffset: 57 },
      { kind: "record", record: { offset: 58 } },
    ]);
  });

  it("marks offsets missing between where the read started and the first record", () => {
    expect(withGaps(at(5), 2, 0)[0]).toEqual({ kind: "gap", fromOffset: 2, toOffset: 4 });
  });

  it("does not call offsets before the log start a gap", () => {
    expect(withGaps(at(10), 0, 10)).toEqual([{ kind: "record", record: { offset: 10 } }]);
  });

  it("returns no rows for no records", () => {
    expect(withGaps([], 3, 0)).toEqual([]);
  });
});

describe("describeGap", () => {
  it("says one offset or a range, as a sentence", () => {
    expect(describeGap({ fromOffset: 12, toOffset: 12 })).toBe("Offset 12 was compacted away.");
    expect(describeGap({ fromOffset: 12, toOffset: 57 })).toBe("Offsets 12–57 were compacted away.");
  });
});
