import { eventually } from "@lastword/db/testing";
import { encodeRecordBatch } from "@lastword/record-batch";
import { CompressionTypes } from "kafkajs";
import { describe, expect, it } from "vitest";
import { provisionTenantKey, rest, str } from "./api-harness";
import { createTopic, issueKey, useTenantWorld, worldKafka } from "./tenant-world";

// GET /tenant/overview and PATCH /tenant against a real worker keeping partitions in a filesystem
// object store. No scheduler tick: the partitions' stats are what this file writes, as a worker's
// report would be, so the dirtiest-topics order is the test's to choose.
const h = useTenantWorld("overview", {
  objectStore: true,
  topics: [
    { name: "ledger", partitions: 1, configs: {} },
    { name: "profiles", partitions: 2, configs: { "cleanup.policy": "compact" } },
    { name: "sessions", partitions: 1, configs: { "cleanup.policy": "compact" } },
    { name: "clicks", partitions: 1, configs: { "cleanup.policy": "delete" } },
  ],
});

interface Overview {
  objectStorage: { objects: number; bytes: number };
  kafkaClientsSeen: number;
  kafkaConnections: { open: number; workers: number; asOf: string | null };
  dirtiestTopics: { topic: string; dirtyBytes: number; dirtyRatio: number; sizeBytes: number }[];
}

const overview = async (apiKey: string): Promise<Overview> => {
  const res = await rest(h.server, { apiKey }, "GET", "/tenant/overview");
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as Overview;
};

/** Writes a partition's stats as its worker reports them (size and dirty ratio). */
async function report(topic: string, index: number, sizeBytes: number, dirtyRatio: number) {
  await h.db.prisma.partition.updateMany({
    where: { index, topic: { organizationId: h.organizationId, name: topic } },
    data: { stats: { sizeBytes, dirtyRatio, lastCleanAt: null, uncleanable: null } },
  });
}

describe("the tenant overview", () => {
  it("sums the tenant's objects in object storage, and no other tenant's", async () => {
    const res = await rest(h.server, { apiKey: h.key }, "POST", "/topics/ledger/records", {
      records: ["a", "b", "c"].map((v) => ({ key: str(v), value: str(v) })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const other = await provisionTenantKey(h.server, "Overview Other");
    await createTopic(h, other.key, { name: "ledger", partitions: 1, configs: {} });
    await rest(h.server, { apiKey: other.key }, "POST", "/topics/ledger/records", {
      records: [{ key: str("z"), value: str("z".repeat(500)) }],
    });
    const rows = await eventually("the tenant's objects committed", 10_000, async () => {
      const found = await h.db.prisma.partitionObject.findMany({
        where: { partition: { topic: { organizationId: h.organizationId } } },
      });
      return found.length > 0 ? found : undefined;
    });
    const seen = await overview(h.key);
    expect(seen.objectStorage).toEqual({
      objects: rows.length,
      bytes: rows.reduce((n, r) => n + r.byteSize, 0),
    });
    const theirRows = await eventually("the other tenant's objects committed", 10_000, async () => {
      const found = await h.db.prisma.partitionObject.findMany({
        where: { partition: { topic: { organizationId: other.organizationId } } },
      });
      return found.length > 0 ? found : undefined;
    });
    expect((await overview(other.key)).objectStorage).toEqual({
      objects: theirRows.length,
      bytes: theirRows.reduce((n, r) => n + r.byteSize, 0),
    });
  });

  it("lists compacted topics by dirty bytes, most first, leaving out clean and delete-policy ones", async () => {
    await report("profiles", 0, 10_000, 0.5); // 5,000 dirty
    await report("profiles", 1, 2_000, 0.25); // 500 dirty
    await report("sessions", 0, 40_000, 0.1); // 4,000 dirty
    await report("clicks", 0, 90_000, 0.9); // delete policy: no cleaner, not listed
    await report("ledger", 0, 1_000, 0); // nothing dirty: not listed
    const seen = await overview(h.key);
    expect(seen.dirtiestTopics).toEqual([
      { topic: "profiles", dirtyBytes: 5_500, dirtyRatio: 5_500 / 12_000, sizeBytes: 12_000 },
      { topic: "sessions", dirtyBytes: 4_000, dirtyRatio: 0.1, sizeBytes: 40_000 },
    ]);
  });

  it("counts the distinct Kafka clients seen in the last day", async () => {
    const topic = await h.db.prisma.topic.findFirstOrThrow({
      where: { organizationId: h.organizationId, name: "profiles" },
    });
    const now = Date.now();
    const seen = (clientId: string, role: string, ago: number) => ({
      topicId: topic.id,
      role,
      clientId,
      softwareName: "kafkajs",
      softwareVersion: "2.2.4",
      lastSeenAt: new Date(now - ago),
    });
    await h.db.prisma.kafkaClientSeen.createMany({
      data: [
        seen("billing", "producer", 60_000),
        // The same client consuming too is one client.
        seen("billing", "consumer", 60_000),
        seen("search", "consumer", 3_600_000),
        seen("retired", "consumer", 2 * 86_400_000),
      ],
    });
    expect((await overview(h.key)).kafkaClientsSeen).toBe(2);
  });

  it("sums the tenant's open Kafka connections over live workers' heartbeats, saying as of when", async () => {
    // Rows as worker-registry.ts writes them with each heartbeat, beside the harness's own worker
    // (which reports its listener's connections too: none of them this tenant's).
    const before = (await overview(h.key)).kafkaConnections;
    expect(before.open).toBe(0);
    const tag = `overview-${Date.now()}`;
    const beat = (id: string, agoMs: number, counts: Record<string, number>, stopped = false) =>
      h.db.prisma.$executeRaw`
        INSERT INTO "Worker" ("id", "address", "heartbeatAt", "stoppedAt", "kafkaConnections")
        VALUES (${`${tag}-${id}`}, 'http://127.0.0.1:1',
          (now() AT TIME ZONE 'UTC') - make_interval(secs => ${agoMs / 1000}),
          ${stopped ? new Date() : null}, ${JSON.stringify(counts)}::jsonb)`;
    const other = "someone-else";
    await beat("a", 2_000, { [h.organizationId]: 3, [other]: 7 });
    await beat("b", 5_000, { [h.organizationId]: 2 });
    await beat("c", 1_000, { [other]: 1 }); // live, none of ours: counts as reporting
    await beat("stale", 120_000, { [h.organizationId]: 50 }); // past LIVE_WORKER_MS: gone
    await beat("stopped", 1_000, { [h.organizationId]: 40 }, true);
    try {
      const seen = (await overview(h.key)).kafkaConnections;
      expect(seen.open).toBe(5);
      expect(seen.workers).toBe(before.workers + 3);
      // As fresh as the oldest heartbeat summed: worker b's, about 5 s ago (the harness's is newer).
      const age = Date.now() - Date.parse(seen.asOf ?? "");
      expect(age).toBeGreaterThanOrEqual(4_000);
      expect(age).toBeLessThan(30_000);
    } finally {
      await h.db.prisma.worker.deleteMany({ where: { id: { startsWith: tag } } });
    }
  });
});

describe("the overview's produce bytes today", () => {
  const today = async (): Promise<Record<string, number>> => {
    const res = await rest(h.server, { apiKey: h.key }, "GET", "/tenant/usage");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.today as Record<string, number>;
  };

  it("counts REST and Kafka produce apart, each in the bytes the shared produce quota charges it", async () => {
    const before = await today();
    const rest1 = await rest(h.server, { apiKey: h.key }, "POST", "/topics/ledger/records", {
      records: [{ key: str("rk"), value: str("rest-value") }],
    });
    expect(rest1.status, JSON.stringify(rest1.body)).toBe(200);
    // A gzip batch of one compressible record: Kafka's measure is the batch inflated (header and
    // record framing included), not the few bytes on the wire, nor REST's key and value bytes.
    const value = "x".repeat(4_000);
    const producer = worldKafka(h, "overview-usage").producer();
    await producer.connect();
    try {
      await producer.send({
        topic: "ledger",
        acks: -1,
        compression: CompressionTypes.GZIP,
        messages: [{ key: "kk", value }],
      });
    } finally {
      await producer.disconnect();
    }
    const inflated = encodeRecordBatch([{ key: Buffer.from("kk"), value: Buffer.from(value) }], {
      baseOffset: 0,
      appendTimeMs: 1,
    }).length;
    // The worker writes its counter behind (USAGE_FLUSH_DELAY_MS).
    const after = await eventually("the Kafka produce counted", 10_000, async () => {
      const seen = await today();
      return (seen.kafkaProducedBytes ?? 0) > (before.kafkaProducedBytes ?? 0) ? seen : undefined;
    });
    expect(after.kafkaProducedBytes).toBe((before.kafkaProducedBytes ?? 0) + inflated);
    expect(after.producedBytes).toBe((before.producedBytes ?? 0) + "rkrest-value".length);
    expect(after.producedRecords).toBe((before.producedRecords ?? 0) + 1);
  });
});

describe("renaming the tenant", () => {
  const name = async () =>
    (await h.db.prisma.organization.findUniqueOrThrow({ where: { id: h.organizationId } })).name;
  const renames = () =>
    h.db.prisma.auditEvent.findMany({
      where: { organizationId: h.organizationId, action: "tenant.renamed" },
    });

  it("refuses a key without admin, and a blank name, changing nothing", async () => {
    const before = await name();
    const denied = await rest(h.server, { apiKey: h.key }, "PATCH", "/tenant", { name: "Acme" });
    expect(denied.status, JSON.stringify(denied.body)).toBe(403);
    expect(denied.body).toMatchObject({ code: "INSUFFICIENT_SCOPE" });
    const admin = await issueKey(h, "admin", ["admin"]);
    const blank = await rest(h.server, { apiKey: admin }, "PATCH", "/tenant", { name: "   " });
    expect(blank.status, JSON.stringify(blank.body)).toBe(400);
    expect(JSON.stringify(blank.body)).toContain("Enter the organization's name.");
    expect(await name()).toBe(before);
    expect(await renames()).toEqual([]);
  });

  it("renames with an admin key, records both names, and shows the new one as the tenant's", async () => {
    const before = await name();
    const admin = await issueKey(h, "renamer", ["admin"]);
    const res = await rest(h.server, { apiKey: admin }, "PATCH", "/tenant", { name: "  Acme Payments " });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ name: "Acme Payments", changed: true });
    const current = await rest(h.server, { apiKey: h.key }, "GET", "/tenant");
    expect(current.body).toMatchObject({ name: "Acme Payments" });
    const events = await renames();
    expect(events).toHaveLength(1);
    expect(events[0]?.data).toEqual({ from: before, to: "Acme Payments" });

    // The same name again is no change, and records nothing.
    const again = await rest(h.server, { apiKey: admin }, "PATCH", "/tenant", { name: "Acme Payments" });
    expect(again.body).toEqual({ name: "Acme Payments", changed: false });
    expect(await renames()).toHaveLength(1);
  });
});
