import { describe, expect, it } from "vitest";
import { describeGap, gapsBetween } from "./record-gaps";

const at = (partition: number, ...offsets: number[]) => offsets.map((offset) => ({ partition, offset }));

describe("gapsBetween", () => {
  it("finds nothing between consecutive offsets", () => {
    expect(gapsBetween(at(0, 0, 1, 2)).size).toBe(0);
  });

  it("marks the run of offsets missing between two records of a partition, keyed by the later one", () => {
    expect([...gapsBetween(at(0, 11, 58))]).toEqual([["0:58", { fromOffset: 12, toOffset: 57 }]]);
  });

  it("looks at each partition on its own, whatever order the records come in", () => {
    const records = [...at(1, 4), ...at(0, 3), ...at(1, 2), ...at(0, 2)];
    expect([...gapsBetween(records)]).toEqual([["1:4", { fromOffset: 3, toOffset: 3 }]]);
  });

  it("marks offsets missing between where a partition's scan started and its first record", () => {
    expect([...gapsBetween(at(0, 5, 6), new Map([[0, 2]]))]).toEqual([
      ["0:5", { fromOffset: 2, toOffset: 4 }],
    ]);
  });

  it("finds nothing in no records", () => {
    expect(gapsBetween([]).size).toBe(0);
  });
});

describe("describeGap", () => {
  it("says one offset or a range, as a sentence", () => {
    expect(describeGap({ fromOffset: 12, toOffset: 12 })).toBe("Offset 12 was compacted away.");
    expect(describeGap({ fromOffset: 12, toOffset: 57 })).toBe("Offsets 12–57 were compacted away.");
  });
});
