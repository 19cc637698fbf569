import { eventually } from "@lastword/db/testing";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { partitionSegmentsOutput } from "../src/services/partition-segments.schema";
import { rest } from "./api-harness";
import { useTenantWorld } from "./tenant-world";

// GET /topics/{topic}/partitions/{p}/segments with a worker that tiers to a filesystem object
// store: each segment's tier (local, uploaded, evicted) and its object, against the manifest rows.
const TIERED = { "segment.bytes": 2048, "local.retention.bytes": 0, "cleanup.policy": "delete" };
const h = useTenantWorld("segment-tiers", {
  objectStore: true,
  topics: [
    { name: "tiered", partitions: 1, configs: TIERED },
    { name: "kept", partitions: 1, configs: { "segment.bytes": 2048, "cleanup.policy": "delete" } },
  ],
});

type Listing = z.infer<typeof partitionSegmentsOutput>;

const listing = async (topic: string): Promise<Listing> => {
  const res = await rest(h.server, { apiKey: h.key }, "GET", `/topics/${topic}/partitions/0/segments`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as Listing;
};

async function produce(topic: string, count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    const res = await rest(h.server, { apiKey: h.key }, "POST", `/topics/${topic}/records`, {
      records: [
        { key: { type: "string", data: `k${n}` }, value: { type: "string", data: "v ".repeat(100) } },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

async function segmentRows(topic: string) {
  return h.db.prisma.partitionObject.findMany({
    where: {
      kind: "segment",
      partition: { index: 0, topic: { organizationId: h.organizationId, name: topic } },
    },
  });
}

describe("segment tiers", () => {
  it("draws closed segments past local retention as evicted, each with its object's key and size", async () => {
    await produce("tiered", 40);
    const evicted = await eventually("every closed segment evicted", 60_000, async () => {
      const answer = await listing("tiered");
      const closed = answer.segments.slice(0, -1);
      return closed.length >= 2 && closed.every((s) => s.tier === "evicted") ? answer : undefined;
    });
    const rows = await segmentRows("tiered");
    for (const segment of evicted.segments.slice(0, -1)) {
      const row = rows.find((r) => Number(r.baseOffset) === segment.baseOffset);
      expect(row, `segment ${segment.baseOffset}`).toBeDefined();
      expect(segment.object).toEqual({ key: row?.objectKey, sizeBytes: row?.byteSize });
    }
    // The active segment is being written: on the worker's disk only.
    expect(evicted.segments.at(-1)).toMatchObject({ tier: "local", object: null });
  });

  it("draws a closed segment uploaded but kept on disk as uploaded", async () => {
    await produce("kept", 40);
    const kept = await eventually("a closed segment uploaded", 90_000, async () => {
      const answer = await listing("kept");
      return answer.segments.slice(0, -1).some((s) => s.tier === "uploaded") ? answer : undefined;
    });
    // Local retention is the topic's retention (unbounded): nothing is evicted.
    expect(kept.segments.some((s) => s.tier === "evicted")).toBe(false);
    const rows = await segmentRows("kept");
    for (const segment of kept.segments.filter((s) => s.tier === "uploaded")) {
      const row = rows.find(
        (r) => Number(r.baseOffset) === segment.baseOffset && Number(r.lastOffset) === segment.lastOffset,
      );
      expect(segment.object).toEqual({ key: row?.objectKey, sizeBytes: row?.byteSize });
    }
  });
});
