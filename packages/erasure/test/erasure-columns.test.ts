import { describe, expect, it } from "vitest";
import {
  deadlineExtensionsSchema,
  isBehindTombstone,
  parseErasureRow,
  parseTombstoneRow,
  preflightsSchema,
  scanEvidenceSchema,
} from "../src/index";
import { at, evidence } from "./fixtures";

const request = {
  status: "at_risk",
  receivedAt: at(0),
  deadlineAt: at(1_000),
  statusReason: "late",
  closedAt: null,
  extensions: [
    { at: at(5).toISOString(), from: at(500).toISOString(), to: at(1_000).toISOString(), reason: "r" },
  ],
};

const tombstoneRow = {
  topicId: "t",
  partitionIndex: 2,
  offset: 41n,
  subjectKey: "a2V5",
  status: "tombstone_expired",
  writtenAt: at(1),
  passRequestedAt: null,
  purgedAt: at(2),
  purgeEvidence: evidence(),
  expiredAt: at(3),
  expiryEvidence: evidence({ belowOffset: null }),
  missedBy: [{ group: "slow-reader", committedOffset: 12 }],
};

describe("erasure JSON columns", () => {
  it("reads a request row: the client's status spelling, extensions parsed", () => {
    const state = parseErasureRow(request);
    expect(state.status).toBe("at-risk");
    expect(state.extensions[0]?.reason).toBe("r");
  });

  it("reads a tombstone row with both scans", () => {
    const facts = parseTombstoneRow(tombstoneRow);
    expect(facts).toMatchObject({ status: "tombstone-expired", partition: 2, offset: 41 });
    expect(facts.expiryEvidence?.belowOffset).toBeNull();
    expect(facts.missedBy).toEqual([{ group: "slow-reader", committedOffset: 12 }]);
  });

  it("refuses a missed-by list whose entries lack a group or have a negative offset", () => {
    expect(() => parseTombstoneRow({ ...tombstoneRow, missedBy: [{ committedOffset: 1 }] })).toThrow();
    expect(() =>
      parseTombstoneRow({ ...tombstoneRow, missedBy: [{ group: "g", committedOffset: -1 }] }),
    ).toThrow();
  });

  it("counts a group at the tombstone's own offset as behind it (it reads that record next)", () => {
    expect(isBehindTombstone(41, 41)).toBe(true);
    expect(isBehindTombstone(40n, 41n)).toBe(true);
    expect(isBehindTombstone(42, 41)).toBe(false);
  });

  it("counts no group without a committed position (a Kafka client's -1 / -2) as behind any tombstone", () => {
    expect(isBehindTombstone(-1n, 41n)).toBe(false);
    expect(isBehindTombstone(-2, 0)).toBe(false);
    expect(isBehindTombstone(0, 0)).toBe(true);
  });

  it("accepts a tombstone not yet scanned (null evidence)", () => {
    const facts = parseTombstoneRow({
      ...tombstoneRow,
      status: "tombstoned",
      purgeEvidence: null,
      expiryEvidence: null,
      missedBy: null,
    });
    expect(facts.purgeEvidence).toBeNull();
  });

  it.each([
    ["a status no one wrote", { ...request, status: "half-done" }],
    ["extensions that are not a list", { ...request, extensions: {} }],
    ["an extension without a reason", { ...request, extensions: [{ ...request.extensions[0], reason: "" }] }],
    [
      "an extension with a time that is not ISO",
      { ...request, extensions: [{ ...request.extensions[0], at: "yesterday" }] },
    ],
  ])("refuses a request row with %s", (_, row) => {
    expect(() => parseErasureRow(row)).toThrow();
  });

  it.each([
    ["a result other than absent or present", { ...evidence(), result: "maybe" }],
    [
      "a segment hash that is not SHA-256 hex",
      { ...evidence(), segments: [{ baseOffset: 0, lastOffset: 1, sizeBytes: 1, sha256: "xyz" }] },
    ],
    ["negative bytes", { ...evidence(), bytesScanned: -1 }],
    ["a missing field", (({ matches: _, ...rest }) => rest)(evidence())],
    ["a string instead of an object", "absent"],
  ])("refuses scan evidence with %s", (_, value) => {
    expect(scanEvidenceSchema.safeParse(value).success).toBe(false);
    expect(() => parseTombstoneRow({ ...tombstoneRow, purgeEvidence: value })).toThrow();
  });

  it("refuses a preflight missing its verdict, and extensions of the wrong shape", () => {
    expect(preflightsSchema.safeParse({ accounts: { deadlineMs: 1 } }).success).toBe(false);
    expect(deadlineExtensionsSchema.safeParse([{ at: 1 }]).success).toBe(false);
  });
});
