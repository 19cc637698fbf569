import type { ScanEvidence } from "@lastword/erasure";
import { describe, expect, it } from "vitest";
import { erasureVerdicts, keyName } from "./erasure-verdicts";

const b64 = (text: string | Buffer) => Buffer.from(text).toString("base64");

const absent = (objects: boolean): ScanEvidence => ({
  scannedAt: "2026-12-07T01:00:00.000Z",
  partitionLogStart: 0,
  partitionLogEnd: 10,
  belowOffset: 9,
  matches: [],
  result: "absent",
  segments: [],
  bytesScanned: 100,
  ...(objects && {
    objects: {
      scanned: [],
      deleted: [],
      caches: [{ workerId: "w1", state: "owner", lastHeartbeatAt: "2026-12-07T01:00:00.000Z" }],
    },
  }),
});

describe("erasure verdicts", () => {
  it("names a text key by its text and a binary one by its bytes", () => {
    expect(keyName(b64("user-42"))).toEqual({ text: "user-42", isText: true, base64: b64("user-42") });
    const binary = Buffer.from([0x00, 0xff, 0x41]);
    expect(keyName(b64(binary))).toEqual({ text: "0x00ff41", isText: false, base64: b64(binary) });
    // Valid UTF-8 with a control character is not read as text either.
    expect(keyName(b64("a\u0000b")).isText).toBe(false);
  });

  it("gives one line per key and topic: proven gone once every partition is, with the tiers and the last proof", () => {
    const verdicts = erasureVerdicts([
      {
        topic: "customers",
        subjectKeyBase64: b64("user-42"),
        status: "purged",
        purgedAt: new Date("2026-12-07T01:00:00Z"),
        purgeEvidence: absent(true),
      },
      {
        topic: "customers",
        subjectKeyBase64: b64("user-42"),
        status: "purged",
        purgedAt: new Date("2026-12-07T01:06:00Z"),
        purgeEvidence: absent(true),
      },
      {
        topic: "orders",
        subjectKeyBase64: b64("user-42"),
        status: "tombstoned",
        purgedAt: null,
        purgeEvidence: null,
      },
    ]);
    expect(verdicts).toEqual([
      {
        key: keyName(b64("user-42")),
        topic: "customers",
        partitions: 2,
        provenPartitions: 2,
        valuesLeft: 0,
        tiers: ["disk", "object storage"],
        lastProofAt: "2026-12-07T01:06:00.000Z",
      },
      {
        key: keyName(b64("user-42")),
        topic: "orders",
        partitions: 1,
        provenPartitions: 0,
        valuesLeft: null,
        tiers: [],
        lastProofAt: null,
      },
    ]);
  });
});
