import { describe, expect, it } from "vitest";
import { nextProgressEvent } from "../src/index";
import { at, DAY_MS, evidence, stateIn, tombstone } from "./fixtures";

const purged = tombstone({ status: "purged", purgedAt: at(DAY_MS), purgeEvidence: evidence() });
const gone = tombstone({
  ...purged,
  status: "tombstone-expired",
  expiredAt: at(2 * DAY_MS),
  expiryEvidence: evidence(),
});

describe("what a request's tombstones call for next", () => {
  it("purges once every partition is verified purged, at the latest proof", () => {
    const later = tombstone({ ...purged, partition: 1, purgedAt: at(29 * DAY_MS) });
    // The tick that sees it may come after the deadline: the proofs' own time is what counts.
    const event = nextProgressEvent(stateIn("at-risk"), [purged, later], at(32 * DAY_MS));
    expect(event).toMatchObject({ type: "all-purged", purgedAt: at(29 * DAY_MS) });
    expect(event?.type === "all-purged" && event.evidence[0]).toMatchObject({
      result: "absent",
      bytesScanned: 512,
    });
  });

  it("fails a request whose last proof came after its deadline, then purges it once extended past the proof", () => {
    const late = tombstone({ ...purged, partition: 1, purgedAt: at(31 * DAY_MS) });
    expect(nextProgressEvent(stateIn("at-risk"), [purged, late], at(32 * DAY_MS))).toEqual({
      type: "deadline-passed",
    });
    expect(nextProgressEvent(stateIn("failed"), [purged, late], at(32 * DAY_MS))).toBeNull();
    const extended = { ...stateIn("tombstoned"), deadlineAt: at(40 * DAY_MS) };
    expect(nextProgressEvent(extended, [purged, late], at(32 * DAY_MS))).toMatchObject({
      type: "all-purged",
      purgedAt: at(31 * DAY_MS),
    });
  });

  it("waits while one partition is unpurged, then marks at risk late in the window, then fails", () => {
    const mixed = [purged, tombstone({ partition: 1 })];
    expect(nextProgressEvent(stateIn("tombstoned"), mixed, at(DAY_MS))).toBeNull();
    expect(nextProgressEvent(stateIn("tombstoned"), mixed, at(30 * DAY_MS - 1_000))).toEqual({
      type: "deadline-near",
      unpurgedPartitions: 1,
    });
    expect(nextProgressEvent(stateIn("at-risk"), mixed, at(30 * DAY_MS + 1))).toEqual({
      type: "deadline-passed",
    });
  });

  it("expires once every tombstone is gone, then closes", () => {
    expect(nextProgressEvent(stateIn("purged"), [gone, purged], at(3 * DAY_MS))).toBeNull();
    expect(nextProgressEvent(stateIn("purged"), [gone], at(3 * DAY_MS))).toMatchObject({
      type: "all-expired",
    });
    expect(nextProgressEvent(stateIn("tombstone-expired"), [gone], at(3 * DAY_MS))).toEqual({
      type: "close",
    });
  });

  it("fails a request whose tombstones were never written only once its deadline passed", () => {
    expect(nextProgressEvent(stateIn("received"), [], at(DAY_MS))).toBeNull();
    expect(nextProgressEvent(stateIn("received"), [], at(31 * DAY_MS))).toEqual({ type: "deadline-passed" });
  });

  it("leaves closed and failed requests alone", () => {
    expect(nextProgressEvent(stateIn("closed"), [gone], at(40 * DAY_MS))).toBeNull();
    expect(nextProgressEvent(stateIn("failed"), [], at(40 * DAY_MS))).toBeNull();
  });
});
