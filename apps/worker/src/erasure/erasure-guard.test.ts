import { describe, expect, it } from "vitest";
import { effectiveMaxCompactionLagMs, erasureSafetyMarginMs } from "./erasure-guard";

describe("erasure deadline guarantee", () => {
  it("keeps the topic's max compaction lag while the deadline is far", () => {
    expect(effectiveMaxCompactionLagMs(60_000, 10_000_000, 0, 5_000)).toBe(60_000);
  });

  it("tightens the lag to what is left before the deadline minus the margin", () => {
    expect(effectiveMaxCompactionLagMs(Number.MAX_SAFE_INTEGER, 100_000, 40_000, 10_000)).toBe(50_000);
  });

  it("is due at once inside the margin or past the deadline", () => {
    expect(effectiveMaxCompactionLagMs(Number.MAX_SAFE_INTEGER, 100_000, 95_000, 10_000)).toBe(0);
    expect(effectiveMaxCompactionLagMs(Number.MAX_SAFE_INTEGER, 100_000, 200_000, 10_000)).toBe(0);
  });

  it("leaves two ticks and a pass as margin", () => {
    expect(erasureSafetyMarginMs(5_000, 2_000)).toBe(12_000);
  });
});
