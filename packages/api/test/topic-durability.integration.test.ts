import { eventually } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TopicDurabilityOutput } from "../src/services/topic-durability.schema";
import { type Harness, provisionTenantKey, rest, startHarness, str } from "./api-harness";
import { createTopic, useTenantWorld } from "./tenant-world";

// GET /topics/{topic}/durability against a real worker that keeps partitions in a filesystem
// object store: the manifest it commits and the log ends it reports, per partition, for the
// topic's tenant only. Its scheduler tick writes the stats the log ends come from.
const h = useTenantWorld("durability", {
  objectStore: true,
  tickMs: 100,
  topics: [
    { name: "ledger", partitions: 2, configs: {} },
    { name: "relaxed", partitions: 1, configs: { "lastword.durability": "local" } },
  ],
});

const durability = async (apiKey: string, topic: string) => {
  const res = await rest(h.server, { apiKey }, "GET", `/topics/${topic}/durability`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as TopicDurabilityOutput;
};

const produce = async (topic: string, values: string[]) => {
  const res = await rest(h.server, { apiKey: h.key }, "POST", `/topics/${topic}/records`, {
    records: values.map((v) => ({ key: str(v), value: str(v), partition: 0 })),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

describe("topic durability with an object store", () => {
  it("answers an acknowledged produce as in object storage, with its objects and the reported log end", async () => {
    await produce("ledger", ["a", "b", "c"]);
    // Acknowledged under `object`: the commit already moved the durable end, before any stats report.
    const now = await durability(h.key, "ledger");
    expect(now.mode).toBe("object");
    expect(now.objectStore).toBe(true);
    expect(now.partitions.map((p) => p.partition)).toEqual([0, 1]);
    expect(now.partitions[0]?.durableEndOffset).toBe(3);

    // The owner's report catches up: nothing of partition 0 is left to upload.
    const reported = await eventually("partition 0's log end reported", 10_000, async () => {
      const d = await durability(h.key, "ledger");
      return d.partitions[0]?.logEndOffset === 3 && d.partitions[1]?.durableEndOffset !== null
        ? d
        : undefined;
    });
    const [p0, p1] = reported.partitions;
    expect(p0?.pendingOffsets).toBe(0);
    expect(p0?.reportedAt).not.toBeNull();
    // The objects are the manifest's rows for the partition, as the worker committed them.
    const rows = await h.db.prisma.partitionObject.findMany({
      where: { partition: { topic: { organizationId: h.organizationId, name: "ledger" }, index: 0 } },
    });
    expect(rows.length).toBeGreaterThan(0);
    expect(p0?.objects).toBe(rows.length);
    expect(p0?.objectBytes).toBe(rows.reduce((n, r) => n + r.byteSize, 0));
    const newest = new Date(Math.max(...rows.map((r) => r.createdAt.getTime()))).toISOString();
    expect(p0?.lastObjectAt).toBe(newest);
    expect(reported.lastObjectAt).toBe(newest);
    // Partition 1 was opened with the store (its manifest starts at its empty log) and holds no object.
    expect(p1).toMatchObject({ durableEndOffset: 0, objects: 0, objectBytes: 0, lastObjectAt: null });
  });

  it("shows a relaxed topic's records reaching object storage within the commit window", async () => {
    await produce("relaxed", ["x", "y"]);
    const d = await eventually("relaxed partition uploaded", 10_000, async () => {
      const answer = await durability(h.key, "relaxed");
      return answer.partitions[0]?.durableEndOffset === 2 && answer.partitions[0].logEndOffset === 2
        ? answer
        : undefined;
    });
    expect(d.mode).toBe("local");
    expect(d.partitions[0]?.pendingOffsets).toBe(0);
    expect(d.partitions[0]?.objects).toBeGreaterThan(0);
    expect(d.lastObjectAt).not.toBeNull();
  });

  it("answers another tenant's key, and an unknown topic, with 404", async () => {
    const other = await provisionTenantKey(h.server, "Durability Other");
    const foreign = await rest(h.server, { apiKey: other.key }, "GET", "/topics/ledger/durability");
    expect(foreign.status).toBe(404);
    const unknown = await rest(h.server, { apiKey: h.key }, "GET", "/topics/nope/durability");
    expect(unknown.status).toBe(404);
  });
});

describe("topic durability without an object store", () => {
  let bare: Harness;
  let key: string;
  beforeAll(async () => {
    bare = await startHarness("durability-local");
    key = (await provisionTenantKey(bare.server, "Durability Local")).key;
    await createTopic(bare, key, { name: "plain", partitions: 2, configs: {} });
  });
  afterAll(() => bare.close());

  it("says the fleet keeps partitions on local disk only, with no durable end anywhere", async () => {
    const res = await rest(bare.server, { apiKey: key }, "GET", "/topics/plain/durability");
    expect(res.status).toBe(200);
    const d = res.body as unknown as TopicDurabilityOutput;
    expect(d.objectStore).toBe(false);
    expect(d.mode).toBe("object");
    expect(d.lastObjectAt).toBeNull();
    expect(d.partitions).toHaveLength(2);
    for (const p of d.partitions) {
      expect(p).toMatchObject({
        durableEndOffset: null,
        pendingOffsets: null,
        objects: 0,
        lastObjectAt: null,
      });
    }
  });
});
