import { describe, expect, it } from "vitest";
import { lagChange, lagTrend } from "./lag-trend";

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();

describe("lag trend from stored samples", () => {
  it("says what the samples show, from none to many", () => {
    expect(lagTrend([])).toBe("No samples in the last hour");
    expect(lagTrend([{ at: at(0), records: 3 }])).toBe("One sample so far: 3 records behind");
    expect(
      lagTrend([
        { at: at(0), records: 10 },
        { at: at(5), records: 1_210 },
      ]),
    ).toBe("Growing by 1,200 records over 5 min");
    expect(
      lagTrend([
        { at: at(0), records: 10 },
        { at: at(30), records: 9 },
      ]),
    ).toBe("Shrinking by 1 record over 30 min");
    expect(
      lagTrend([
        { at: at(0), records: 4 },
        { at: at(1), records: 9 },
        { at: at(2), records: 4 },
      ]),
    ).toBe("Steady at 4 records over 2 min");
  });

  it("signs the change from the first sample to the last", () => {
    expect(lagChange([{ at: at(0), records: 5 }])).toBe(0);
    expect(
      lagChange([
        { at: at(0), records: 5 },
        { at: at(1), records: 2 },
      ]),
    ).toBe(-3);
  });
});
