import { describe, expect, it } from "vitest";
import {
  durabilityModeWords,
  recoveryPointWords,
  type TopicDurability,
  uploadLagWords,
} from "./durability-wording";

const NOW = Date.parse("2026-12-02T10:00:10.000Z");
const partition = (index: number, durableEndOffset: number | null, pendingOffsets: number | null = 0) => ({
  partition: index,
  logEndOffset: durableEndOffset === null ? 5 : durableEndOffset + (pendingOffsets ?? 0),
  durableEndOffset,
  pendingOffsets: durableEndOffset === null ? null : pendingOffsets,
  objects: durableEndOffset ? 1 : 0,
  objectBytes: durableEndOffset ? 100 : 0,
  lastObjectAt: durableEndOffset ? "2026-12-02T10:00:07.000Z" : null,
  reportedAt: "2026-12-02T10:00:09.000Z",
});
const topic = (over: Partial<TopicDurability>): TopicDurability => ({
  mode: "object",
  objectStore: true,
  lastObjectAt: "2026-12-02T10:00:07.000Z",
  partitions: [partition(0, 43), partition(1, 43)],
  ...over,
});

describe("durabilityModeWords", () => {
  it("names when a produce is acknowledged, and a fleet without a store above either mode", () => {
    expect(durabilityModeWords({ mode: "object", objectStore: true })).toBe(
      "Acknowledged after upload to object storage",
    );
    expect(durabilityModeWords({ mode: "local", objectStore: true })).toBe(
      "Acknowledged on local disk; uploaded within one commit window",
    );
    for (const mode of ["object", "local"] as const) {
      expect(durabilityModeWords({ mode, objectStore: false })).toBe(
        "Local disk only: no object store configured",
      );
    }
  });
});

describe("recoveryPointWords", () => {
  it("gives the last offset in object storage when every partition ends at the same one, and the upload's age", () => {
    expect(recoveryPointWords(topic({}), NOW)).toBe(
      "Everything up to offset 42 in each partition is in object storage; last upload 3 s ago.",
    );
    expect(recoveryPointWords(topic({ partitions: [partition(0, 1)] }), NOW)).toBe(
      "Everything up to offset 0 in the partition is in object storage; last upload 3 s ago.",
    );
  });

  it("points at the table when ends differ, and counts the offsets not yet uploaded", () => {
    const d = topic({ mode: "local", partitions: [partition(0, 10, 2), partition(1, 4, 1)] });
    expect(recoveryPointWords(d, NOW)).toBe(
      "Everything below each partition's durable end (table) is in object storage; 3 offsets not yet uploaded; last upload 3 s ago.",
    );
  });

  it("says nothing is uploaded yet for empty partitions and names those not opened with the store", () => {
    const d = topic({
      lastObjectAt: null,
      partitions: [partition(0, 0), partition(1, null), partition(2, null)],
    });
    expect(recoveryPointWords(d, NOW)).toBe(
      "Nothing in partition 0 is in object storage yet; partitions 1, 2 not yet opened with the object store; no upload yet.",
    );
  });

  it("has no recovery point without an object store", () => {
    const d = topic({ objectStore: false, lastObjectAt: null, partitions: [partition(0, null)] });
    expect(recoveryPointWords(d, NOW)).toBe(
      "No recovery point: the partitions are only on their worker's disk, and a lost disk loses them.",
    );
  });
});

describe("uploadLagWords", () => {
  it("counts the offsets not yet uploaded, names the partition furthest behind, and the last upload's age", () => {
    const d = topic({ mode: "local", partitions: [partition(0, 10, 2), partition(1, 4, 5)] });
    expect(uploadLagWords(d, NOW)).toBe(
      "7 offsets not yet uploaded (most: partition 1, 5 offsets); last upload 3 s ago.",
    );
  });

  it("says none when every reported offset is uploaded, not known before a report, nothing without a store", () => {
    expect(uploadLagWords(topic({}), NOW)).toBe(
      "None: every reported offset is in object storage (last upload 3 s ago).",
    );
    expect(uploadLagWords(topic({ partitions: [partition(0, null)] }), NOW)).toBe(
      "Not known yet: no partition has reported its log end.",
    );
    expect(uploadLagWords(topic({ objectStore: false }), NOW)).toBeNull();
  });
});
