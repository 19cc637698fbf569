import { describe, expect, it } from "vitest";
import { humanDuration } from "./human-duration";

describe("humanDuration", () => {
  it("says minutes, not milliseconds", () => {
    expect(humanDuration(483_678)).toBe("8 min");
    expect(humanDuration(45_000)).toBe("45 s");
  });

  it("keeps the two largest units, rounded down", () => {
    expect(humanDuration(2 * 3_600_000 + 5 * 60_000 + 59_000)).toBe("2 h 5 min");
    expect(humanDuration(3 * 86_400_000 + 4 * 3_600_000 + 1)).toBe("3 d 4 h");
    expect(humanDuration(3_600_000 + 30_000)).toBe("1 h");
  });

  it("names no lag and a lag under a second", () => {
    expect(humanDuration(0)).toBe("0 s");
    expect(humanDuration(999)).toBe("under 1 s");
  });
});
