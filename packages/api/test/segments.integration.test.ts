import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { partitionSegmentsOutput } from "../src/services/partition-segments.schema";
import { rest, str } from "./api-harness";
import { issueKey, useTenantWorld } from "./tenant-world";

// GET /topics/{topic}/partitions/{p}/segments through a real worker, before and after a cleaner pass.
// No scheduling: nothing cleans on its own, and a requested pass runs inline.
const h = useTenantWorld("segments", {
  topics: [{ name: "table", partitions: 1, configs: { "cleanup.policy": "compact", "segment.bytes": 200 } }],
});
let adminKey: string;
let metadataOnlyKey: string;

/** The route's answer, as its OpenAPI schema declares it. */
type SegmentListing = z.infer<typeof partitionSegmentsOutput>;
type SegmentRow = SegmentListing["segments"][number];

const TOMBSTONE_OFFSET = 8;
const holding = (segments: SegmentRow[], offset: number) =>
  segments.find((s) => s.baseOffset <= offset && offset <= s.lastOffset);
const tombstones = (segments: SegmentRow[]) => segments.reduce((n, s) => n + s.tombstones, 0);
const listing = async (apiKey: string) => {
  const res = await rest(h.server, { apiKey }, "GET", "/topics/table/partitions/0/segments");
  expect(res.status).toBe(200);
  return res.body as unknown as SegmentListing;
};

beforeAll(async () => {
  metadataOnlyKey = await issueKey(h, "meta", ["topics:read"]);
  adminKey = await issueKey(h, "admin", ["admin"]);
  // The seed's picture: A, B and C overwritten, then B deleted (offset 8); one batch per record so
  // segments roll at 200 bytes.
  for (const write of "A=a1 B=b1 A=a2 C=c1 B=b2 A=a3 D=d1 C=c2 B E=e1 F=f1".split(" ")) {
    // "K=v" writes v under K; a bare "K" is K's tombstone.
    const [k, v] = write.split("=") as [string, string | undefined];
    const res = await rest(h.server, { apiKey: h.key }, "POST", "/topics/table/records", {
      records: [{ key: str(k), value: v === undefined ? null : str(v), partition: 0 }],
    });
    expect(res.status).toBe(200);
  }
});

describe("partition segments", () => {
  it("lists dirty segments then the active one, covering every offset, to a topics:read-only key", async () => {
    const before = await listing(metadataOnlyKey);
    expect(before.logEndOffset).toBe(11);
    expect(before.segments.length).toBeGreaterThanOrEqual(3);
    expect(before.segments.at(-1)?.state).toBe("active");
    expect(before.segments.slice(0, -1).every((s) => s.state === "dirty")).toBe(true);
    // Adjacent: each segment starts where the previous one ended; together they hold all 11 records.
    for (let i = 1; i < before.segments.length; i++) {
      expect(before.segments[i]?.baseOffset).toBe((before.segments[i - 1]?.lastOffset ?? -2) + 1);
    }
    expect(before.segments.reduce((n, s) => n + s.records, 0)).toBe(11);
    // The one delete is counted in the segment that holds it, and nowhere else.
    expect(tombstones(before.segments)).toBe(1);
    expect(holding(before.segments, TOMBSTONE_OFFSET)?.tombstones).toBe(1);
    for (const s of before.segments.filter((x) => x.records > 0)) {
      expect(s.sizeBytes).toBeGreaterThan(0);
      expect(s.firstTimestamp).not.toBeNull();
      expect(s.maxTimestamp).toBeGreaterThanOrEqual(s.firstTimestamp ?? 0);
    }
    expect(before.cleaner?.lastCleanAt).toBeNull();
  });

  it("shows the dirty segments clean and smaller after a cleaner pass", async () => {
    const before = await listing(h.key);
    const dirtyBytes = before.segments
      .filter((s) => s.state === "dirty")
      .reduce((n, s) => n + s.sizeBytes, 0);
    // Asking for a pass is an admin's call; a read/write key is refused and nothing runs.
    const refused = await rest(h.server, { apiKey: h.key }, "POST", "/topics/table/partitions/0/clean", {});
    expect(refused.status).toBe(403);
    expect((await listing(h.key)).cleaner?.lastCleanAt).toBeNull();
    const asked = await rest(h.server, { apiKey: adminKey }, "POST", "/topics/table/partitions/0/clean", {});
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ partition: 0, accepted: true });

    const after = await listing(h.key);
    expect(after.segments.at(-1)?.state).toBe("active");
    const closed = after.segments.slice(0, -1);
    expect(closed.length).toBeGreaterThan(0);
    expect(closed.every((s) => s.state === "clean")).toBe(true);
    expect(closed.reduce((n, s) => n + s.sizeBytes, 0)).toBeLessThan(dirtyBytes);
    // B's values are gone; its tombstone (the latest for B, within delete.retention.ms) stays, counted.
    expect(after.segments.reduce((n, s) => n + s.records, 0)).toBe(6);
    expect(tombstones(after.segments)).toBe(1);
    expect(holding(after.segments, TOMBSTONE_OFFSET)?.tombstones).toBe(1);
    expect(after.cleaner?.lastCleanAt).toEqual(expect.any(Number));
  });

  it("answers 404 for a partition the topic does not have", async () => {
    const res = await rest(h.server, { apiKey: h.key }, "GET", "/topics/table/partitions/3/segments");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("PARTITION_NOT_FOUND");
  });
});
