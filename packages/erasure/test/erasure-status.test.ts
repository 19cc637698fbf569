import { describe, expect, it } from "vitest";
import {
  ADVANCING_ERASURE_STATUSES,
  ERASURE_STATUS_LABELS,
  ERASURE_STATUSES,
  isDeadlineOpen,
  isTerminal,
  storedErasureStatus,
  storedTombstoneStatus,
  TOMBSTONE_STATUSES,
  toStored,
} from "../src/index";

describe("erasure statuses", () => {
  it("crosses between the stored (client) spelling and ours without loss", () => {
    for (const status of ERASURE_STATUSES) {
      expect(toStored(status)).toMatch(/^[a-z_]+$/);
      expect(storedErasureStatus(toStored(status))).toBe(status);
    }
    for (const status of TOMBSTONE_STATUSES) expect(storedTombstoneStatus(toStored(status))).toBe(status);
    expect(toStored("tombstone-expired")).toBe("tombstone_expired");
  });

  it("refuses a stored status outside the union", () => {
    expect(() => storedErasureStatus("archived")).toThrow();
    expect(() => storedTombstoneStatus("closed")).toThrow();
  });

  it("has a label per status, and the workers advance exactly the non-terminal ones", () => {
    expect(Object.keys(ERASURE_STATUS_LABELS).sort()).toEqual([...ERASURE_STATUSES].sort());
    expect(ADVANCING_ERASURE_STATUSES).toEqual(
      ERASURE_STATUSES.filter((s) => s !== "closed" && s !== "failed"),
    );
  });

  it("keeps the deadline binding until the purge is proven", () => {
    expect(ERASURE_STATUSES.filter(isDeadlineOpen)).toEqual(["received", "tombstoned", "at-risk"]);
    expect(ERASURE_STATUSES.filter(isTerminal)).toEqual(["closed", "failed"]);
  });
});
