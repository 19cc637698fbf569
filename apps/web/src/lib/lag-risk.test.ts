import { describe, expect, it } from "vitest";
import { lagRisk } from "./lag-risk";

const DAY_MS = 86_400_000;

describe("lagRisk", () => {
  it("is fine while the lag is under half of delete.retention.ms", () => {
    expect(lagRisk(0, DAY_MS)).toBe("ok");
    expect(lagRisk(DAY_MS / 2 - 1, DAY_MS)).toBe("ok");
  });

  it("warns from half and turns dangerous from 80 %", () => {
    expect(lagRisk(DAY_MS / 2, DAY_MS)).toBe("warning");
    expect(lagRisk(0.8 * DAY_MS, DAY_MS)).toBe("danger");
    expect(lagRisk(2 * DAY_MS, DAY_MS)).toBe("danger");
  });

  it("treats any lag as dangerous when tombstones are not retained at all", () => {
    expect(lagRisk(1, 0)).toBe("danger");
    expect(lagRisk(0, 0)).toBe("ok");
  });
});
