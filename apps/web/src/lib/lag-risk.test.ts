import { describe, expect, it } from "vitest";
import { lagRisk, lagRiskLabel } from "./lag-risk";

const DAY_MS = 86_400_000;

describe("lagRisk", () => {
  it("is fine while the lag is under half of delete.retention.ms", () => {
    expect(lagRisk(0, DAY_MS)).toBe("ok");
    expect(lagRisk(DAY_MS / 2 - 1, DAY_MS)).toBe("ok");
  });

  it("warns from half and is near tombstone expiry from 80 % up to delete.retention.ms itself", () => {
    expect(lagRisk(DAY_MS / 2, DAY_MS)).toBe("warning");
    expect(lagRisk(0.8 * DAY_MS, DAY_MS)).toBe("near");
    expect(lagRisk(DAY_MS, DAY_MS)).toBe("near");
  });

  it("is past tombstone expiry once the lag is longer than delete.retention.ms", () => {
    expect(lagRisk(DAY_MS + 1, DAY_MS)).toBe("past");
    expect(lagRisk(2 * DAY_MS, DAY_MS)).toBe("past");
    expect(lagRiskLabel("past")).toBe("Past tombstone expiry: may have missed deletes");
    expect(lagRiskLabel("near")).toBe("Near tombstone expiry");
    expect(lagRiskLabel("warning")).toBeNull();
  });

  it("treats any lag as past expiry when tombstones are not retained at all", () => {
    expect(lagRisk(1, 0)).toBe("past");
    expect(lagRisk(0, 0)).toBe("ok");
  });
});
