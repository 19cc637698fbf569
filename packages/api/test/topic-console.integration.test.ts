import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, rest, startHarness, startHarnessWorker, str } from "./api-harness";
import type { WorkerProcess } from "./worker-process";

// What the console's topic list and message browser read beyond the basics: per-topic usage from
// worker reports, one partition's passes with their dirty ratios, offsets by timestamp.
let h: Harness;
let worker: WorkerProcess;
const dataDirs: string[] = [];
let key: string;
let organizationId: string;
let userId: string;

beforeAll(async () => {
  h = await startHarness("topic-console");
  await startOwnWorker();
  const tenant = await h.server.provisionTenant({
    name: "Con",
    email: "con@example.com",
    password: "con-pass-1",
  });
  organizationId = tenant.organizationId;
  userId = tenant.userId;
  key = (await h.server.createApiKey({ ...tenant, name: "rw" })).key;
  for (const [name, configs] of [
    ["table", { "cleanup.policy": "compact" }],
    ["events", { "cleanup.policy": "delete", "retention.bytes": 1000 }],
  ] as const) {
    const created = await rest(h.server, { apiKey: key }, "POST", "/topics", {
      name,
      partitions: 2,
      configs,
    });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await worker?.stop();
  await h?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function startOwnWorker(): Promise<void> {
  const started = await startHarnessWorker(h);
  worker = started.worker;
  dataDirs.push(started.dataDir);
}

async function partitionId(topic: string, index: number): Promise<string> {
  const row = await h.db.prisma.partition.findFirstOrThrow({
    where: { index, topic: { organizationId, name: topic } },
  });
  return row.id;
}

describe("topic list usage", () => {
  it("adds up the partitions' worker reports: size, dirty bytes, ratio, last clean, uncleanable", async () => {
    // Reports as a worker's PartitionStatsRepository writes them; the claim loop may rewrite them,
    // so the owner is detached first and the worker leaves rows it does not own alone.
    const report = (
      sizeBytes: number,
      dirtyRatio: number,
      lastCleanAt: string | null,
      uncleanable: { error: string; failures: number; held: boolean; retryAt: null } | null,
    ) => ({
      sizeBytes,
      segments: 1,
      logStartOffset: 0,
      logEndOffset: 0,
      dirtyRatio,
      cleanable: false,
      nextCleanDueAt: null,
      lastCleanAt,
      uncleanable,
      updatedAt: new Date().toISOString(),
    });
    const stopped = { error: "EISDIR", failures: 4, held: true, retryAt: null };
    await worker.stop();
    for (const [index, stats] of [
      [0, report(1000, 0.5, "2026-11-30T01:00:00.000Z", null)],
      [1, report(3000, 0.1, "2026-11-30T02:00:00.000Z", stopped)],
    ] as const) {
      await h.db.prisma.partition.update({
        where: { id: await partitionId("table", index) },
        data: { stats, ownerWorkerId: null },
      });
    }
    const res = await rest(h.server, { apiKey: key }, "GET", "/topics");
    expect(res.status).toBe(200);
    const topics = res.body.topics as {
      name: string;
      usage: Record<string, unknown>;
      warnings: { code: string }[];
    }[];
    const table = topics.find((t) => t.name === "table")!;
    expect(table.usage).toEqual({
      reportedPartitions: 2,
      sizeBytes: 4000,
      dirtyBytes: 800,
      dirtyRatio: 0.2,
      lastCleanAt: "2026-11-30T02:00:00.000Z",
      uncleanablePartitions: 1,
    });
    // Kafka's defaults do not hold an erasure back (the guard rewrites at once): no deadline warning.
    expect(table.warnings.map((w) => w.code)).toEqual(["PARTITIONS_UNCLEANABLE"]);
    const events = topics.find((t) => t.name === "events")!;
    expect(events.usage).toMatchObject({
      reportedPartitions: 0,
      sizeBytes: 0,
      dirtyRatio: 0,
      lastCleanAt: null,
    });
    expect(events.warnings.map((w) => w.code)).toEqual(["RETENTION_BYTES_PER_PARTITION"]);
    await startOwnWorker();
  });
});

describe("topic warnings", () => {
  it("are one set: the list, the topic page and the compliance report agree on the erasure deadline", async () => {
    const erasureKey = (
      await h.server.createApiKey({
        organizationId,
        userId,
        name: "erasure-reader",
        scopes: ["topics:read", "topics:write", "erasure:read"],
      })
    ).key;
    const verdicts = async () => {
      const list = await rest(h.server, { apiKey: erasureKey }, "GET", "/topics");
      const page = await rest(h.server, { apiKey: erasureKey }, "GET", "/topics/table");
      const report = await rest(h.server, { apiKey: erasureKey }, "GET", "/erasure-topics");
      const codes = (warnings: unknown) => (warnings as { code: string }[]).map((w) => w.code);
      const listed = (list.body.topics as { name: string; warnings: unknown }[]).find(
        (t) => t.name === "table",
      )!;
      const preflight = (
        report.body.topics as { topic: string; preflight: { meetsDeadline: boolean } }[]
      ).find((t) => t.topic === "table")!.preflight;
      return {
        list: codes(listed.warnings),
        page: codes(page.body.warnings),
        meets: preflight.meetsDeadline,
      };
    };
    const initial = await verdicts();
    expect(initial.meets).toBe(true);
    expect(initial.list).not.toContain("ERASURE_DEADLINE_MISSED");
    // min.compaction.lag.ms beyond the deadline holds an erased key's old values past it.
    const held = await rest(h.server, { apiKey: erasureKey }, "PATCH", "/topics/table/configs", {
      set: { "min.compaction.lag.ms": String(40 * 86_400_000) },
    });
    expect(held.status).toBe(200);
    const before = await verdicts();
    expect(before.meets).toBe(false);
    expect(before.list).toContain("ERASURE_DEADLINE_MISSED");
    expect(before.page).toEqual(before.list);

    const fixed = await rest(h.server, { apiKey: erasureKey }, "PATCH", "/topics/table/configs", {
      set: { "min.compaction.lag.ms": String(86_400_000) },
    });
    expect(fixed.status).toBe(200);
    const after = await verdicts();
    expect(after.meets).toBe(true);
    expect(after.list).not.toContain("ERASURE_DEADLINE_MISSED");
    expect(after.page).toEqual(after.list);
  });
});

describe("cleaner runs of one partition", () => {
  it("filters by partition and carries the dirty ratio before and after each pass", async () => {
    const p0 = await partitionId("table", 0);
    const p1 = await partitionId("table", 1);
    await h.db.prisma.cleanerRun.createMany({
      data: [
        {
          partitionId: p0,
          status: "completed",
          startedAt: new Date(1000),
          trigger: "dirty-ratio",
          dirtyRatioBefore: 0.8,
          dirtyRatioAfter: 0,
          bytesRead: 3_000n,
          bytesWritten: 2_900n,
          bytesBefore: 2_950n,
          bytesAfter: 2_900n,
        },
        {
          partitionId: p1,
          status: "completed",
          startedAt: new Date(2000),
          dirtyRatioBefore: 0.6,
          dirtyRatioAfter: 0.1,
        },
      ],
    });
    const res = await rest(h.server, { apiKey: key }, "GET", "/topics/table/cleaner-runs?partition=0");
    expect(res.status).toBe(200);
    const runs = res.body.runs as Record<string, unknown>[];
    expect(runs.map((r) => [r.partition, r.trigger, r.dirtyRatioBefore, r.dirtyRatioAfter])).toEqual([
      [0, "dirty-ratio", 0.8, 0],
    ]);
    // Reclaimed is what the partition shrank by (before − after), not read − written.
    expect(runs[0]!.reclaimedBytes).toBe(50);
    // ...the difference of the two sizes the runs table shows beside it.
    expect([runs[0]!.bytesBefore, runs[0]!.bytesAfter]).toEqual([2_950, 2_900]);
    const all = await rest(h.server, { apiKey: key }, "GET", "/topics/table/cleaner-runs");
    expect((all.body.runs as { reclaimedBytes: number | null }[]).map((r) => r.reclaimedBytes)).toEqual([
      null,
      50,
    ]);
  });
});

describe("offsets by timestamp", () => {
  it("answers log bounds and the first offset at or after a timestamp, null past the last record", async () => {
    const produced = await rest(h.server, { apiKey: key }, "POST", "/topics/events/records", {
      records: [1_000, 2_000, 3_000].map((timestamp, i) => ({
        key: str(`k${i}`),
        value: str(`v${i}`),
        partition: 1,
        timestamp,
      })),
    });
    expect(produced.status).toBe(200);
    const at = async (query: string) => {
      const res = await rest(h.server, { apiKey: key }, "GET", `/topics/events/partitions/1/offsets${query}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    expect(await at("?timestamp=1500")).toEqual({ partition: 1, earliest: 0, latest: 3, timestampOffset: 1 });
    expect(await at("?timestamp=3000")).toMatchObject({ timestampOffset: 2 });
    expect(await at("?timestamp=9000")).toMatchObject({ timestampOffset: null });
    expect(await at("")).toEqual({ partition: 1, earliest: 0, latest: 3, timestampOffset: null });
    const missing = await rest(h.server, { apiKey: key }, "GET", "/topics/events/partitions/7/offsets");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("PARTITION_NOT_FOUND");
  });
});
