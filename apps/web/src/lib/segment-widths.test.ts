import { describe, expect, it } from "vitest";
import { segmentWidths } from "./segment-widths";

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

describe("segmentWidths", () => {
  it("is proportional to bytes when every block clears the minimum", () => {
    expect(segmentWidths([100, 300], 2)).toEqual([25, 75]);
  });

  it("raises tiny blocks to the minimum and shrinks the others in proportion", () => {
    const widths = segmentWidths([1, 1_000_000, 3_000_000], 4);
    expect(widths[0]).toBe(4);
    expect(widths[1]).toBeCloseTo(24);
    expect(widths[2]).toBeCloseTo(72);
    expect(sum(widths)).toBeCloseTo(100);
  });

  it("keeps pinning while raising one block pushes another under the minimum", () => {
    const widths = segmentWidths([1, 5, 94], 10);
    expect(widths[0]).toBe(10);
    expect(widths[1]).toBe(10);
    expect(widths[2]).toBeCloseTo(80);
  });

  it("splits evenly when there are no bytes or too many blocks for the minimum", () => {
    expect(segmentWidths([0, 0], 5)).toEqual([50, 50]);
    expect(segmentWidths([1, 2, 3, 4], 30)).toEqual([25, 25, 25, 25]);
  });

  it("gives an empty bar no blocks", () => {
    expect(segmentWidths([], 5)).toEqual([]);
  });
});
