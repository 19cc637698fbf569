import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DataPlaneClient } from "@lastword/dataplane";
import { verifyAuditChain } from "@lastword/db";
import type { TestDatabase } from "@lastword/db/testing";
import { ManualClock } from "@lastword/logstore";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TombstoneAudit } from "../src/hosting/tombstone-audit";
import type { RunningWorker } from "../src/worker";
import { TcpProxy } from "./tcp-proxy";
import { createTestTopic, eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// No scheduling: passes run inline when requested, so the test decides when the cleaner runs. The
// worker's logs and audit read a manual clock, so a tombstone's horizon passes when the test moves
// it. The worker reaches Postgres through a relay the second test cuts; its warnings are kept.
const SECRET = "tombstone-audit-secret";
const RETENTION_MS = 400;
const LEASE_TTL_MS = 1_000;
const clock = new ManualClock();
const warnings: string[] = [];
let harness: WorkerHarness;
let db: TestDatabase;
let dataDir: string;
let proxy: TcpProxy;
let worker: RunningWorker;
let client: DataPlaneClient;

function launch(databaseUrl: string): Promise<RunningWorker> {
  const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
  return harness.startWorker({ databaseUrl, claimIntervalMs: 100, leaseTtlMs: LEASE_TTL_MS, clock, logger });
}

beforeAll(async () => {
  harness = await openWorkerHarness({ name: "tombstone-audit", secret: SECRET });
  ({ db, client, dataDir } = harness);
  const upstream = new URL(db.url);
  proxy = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
  worker = await launch(proxy.relayUrl(db.url));
});

afterAll(async () => {
  // Restored first: the worker's graceful stop needs Postgres.
  proxy?.restore();
  await harness?.close();
  await proxy?.close();
});

const text = (value: string) => Buffer.from(value);
const epochOf = async (partitionId: string) =>
  (await db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } })).leaseEpoch;
const compacted = {
  "cleanup.policy": "compact",
  "segment.bytes": "300",
  "delete.retention.ms": String(RETENTION_MS),
};

function events(organizationId: string, action: string) {
  return db.prisma.auditEvent.findMany({ where: { organizationId, action }, orderBy: { seq: "asc" } });
}

interface AuditedTombstone {
  key: { type: string; data: string };
  offset: number;
  writtenAt: string;
  horizon?: string | null;
  reason?: string;
}

describe("tombstone audit trail", () => {
  it("records each produce's tombstones and each pass's removals in the tenant's hash chain", async () => {
    const topic = await createTestTopic(db.prisma, { partitions: 1, configs: compacted });
    const partitionId = topic.partitionIds[0]!;
    const binaryKey = Buffer.from([0xff, 0xfe, 0x00]);
    await client.produce({ partitionId, records: [{ key: text("a"), value: text("1") }] });
    const writtenAt = clock.now();
    const produced = await client.produce({
      partitionId,
      records: [
        { key: text("a"), value: null },
        { key: text("c"), value: text("kept") },
        { key: binaryKey, value: null, timestamp: writtenAt },
      ],
    });
    // A value-only produce and a delete-policy topic write no audit event.
    await client.produce({ partitionId, records: [{ key: text("d"), value: text("x".repeat(150)) }] });
    const other = await createTestTopic(db.prisma, {
      partitions: 1,
      organizationId: topic.organizationId,
      configs: { "cleanup.policy": "delete" },
    });
    await client.produce({ partitionId: other.partitionIds[0]!, records: [{ key: text("z"), value: null }] });
    await worker.auditIdle();

    const written = await events(topic.organizationId, "tombstones.written");
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      actorType: "system",
      actorId: worker.id,
      targetType: "partition",
      targetId: partitionId,
      data: {
        topic: (await db.prisma.topic.findUniqueOrThrow({ where: { id: topic.topicId } })).name,
        partition: 0,
        deleteRetentionMs: RETENTION_MS,
        tombstones: [
          { key: { type: "string", data: "a" }, offset: produced.offsets[0] },
          {
            key: { type: "base64", data: binaryKey.toString("base64") },
            offset: produced.offsets[2],
            writtenAt: new Date(writtenAt).toISOString(),
          },
        ],
      },
    });

    // First pass: the tombstones remove "a"'s value and get their horizon stamped; they stay.
    await client.requestClean({ partitionId });
    const firstPassAt = clock.now();
    await worker.auditIdle();
    expect(await events(topic.organizationId, "tombstones.removed")).toHaveLength(0);
    // A millisecond before the horizon a pass keeps them; at the horizon one removes both.
    clock.advance(RETENTION_MS - 1);
    await client.requestClean({ partitionId });
    await worker.auditIdle();
    expect(await events(topic.organizationId, "tombstones.removed")).toHaveLength(0);
    clock.advance(1);
    await client.requestClean({ partitionId });
    await worker.auditIdle();
    const removed = await events(topic.organizationId, "tombstones.removed");
    expect(removed).toHaveLength(1);
    const run = await db.prisma.cleanerRun.findFirstOrThrow({
      where: { partitionId, tombstonesRemoved: { gt: 0 } },
    });
    const data = removed[0]!.data as unknown as {
      runId: string;
      removedAt: string;
      tombstones: AuditedTombstone[];
    };
    expect(data.runId).toBe(run.id);
    expect(data.tombstones.map((t) => [t.key.data, t.offset, t.reason])).toEqual([
      ["a", produced.offsets[0], "delete-horizon"],
      [binaryKey.toString("base64"), produced.offsets[2], "delete-horizon"],
    ]);
    for (const t of data.tombstones) {
      const horizon = Date.parse(t.horizon!);
      // Stamped by the first pass: its start + delete.retention.ms, and passed when removed.
      expect(horizon).toBe(firstPassAt + RETENTION_MS);
      expect(Date.parse(data.removedAt)).toBe(firstPassAt + RETENTION_MS);
    }
    expect(await verifyAuditChain(db.prisma, topic.organizationId)).toBeNull();
  });

  it("audits a tombstone whose key holds NUL by its bytes (base64): jsonb cannot hold U+0000", async () => {
    const topic = await createTestTopic(db.prisma, { partitions: 1, configs: compacted });
    const partitionId = topic.partitionIds[0]!;
    const nulKey = text("user\u0000id");
    const produced = await client.produce({
      partitionId,
      records: [
        { key: nulKey, value: null },
        { key: text("after"), value: null },
      ],
    });
    // Waits for the write: on an insert that fails, the queue retries it and never becomes idle.
    await worker.auditIdle();
    const written = await events(topic.organizationId, "tombstones.written");
    expect(written).toHaveLength(1);
    const tombstones = (written[0]!.data as unknown as { tombstones: AuditedTombstone[] }).tombstones;
    expect(tombstones.map((t) => [t.key, t.offset])).toEqual([
      [{ type: "base64", data: nulKey.toString("base64") }, produced.offsets[0]],
      [{ type: "string", data: "after" }, produced.offsets[1]],
    ]);
    expect(Buffer.from(tombstones[0]!.key.data, "base64").equals(nulKey)).toBe(true);
    expect(await verifyAuditChain(db.prisma, topic.organizationId)).toBeNull();
  });

  it("acknowledges a produce while Postgres is unreachable and writes its audit event once it returns", async () => {
    const topic = await createTestTopic(db.prisma, { partitions: 1, configs: compacted });
    const partitionId = topic.partitionIds[0]!;
    await client.produce({ partitionId, records: [{ key: text("warm"), value: text("up") }] });
    const failedWrites = warnings.length;
    proxy.cut();
    // Acknowledged with the relay still cut: the answer did not wait for Postgres.
    const produced = await client.produce({ partitionId, records: [{ key: text("gone"), value: null }] });
    // Before answering, the event went to the partition's spool file; its write to Postgres fails.
    const spool = await readFile(
      join(
        dataDir,
        topic.organizationId,
        topic.topicId,
        "0",
        `audit-pending.${await epochOf(partitionId)}.jsonl`,
      ),
      "utf8",
    );
    expect(spool).toContain('"gone"');
    await eventually(
      "the audit write failing",
      10_000,
      async () =>
        warnings
          .slice(failedWrites)
          .includes("tombstone audit event not written; retrying in the background") || undefined,
    );
    expect(await events(topic.organizationId, "tombstones.written")).toHaveLength(0);
    proxy.restore();
    const [event] = await eventually("the audit event after the outage", 15_000, async () => {
      const found = await events(topic.organizationId, "tombstones.written");
      return found.length ? found : undefined;
    });
    expect(event!.data).toMatchObject({
      tombstones: [{ key: { type: "string", data: "gone" }, offset: produced.offsets[0] }],
    });
    expect(await verifyAuditChain(db.prisma, topic.organizationId)).toBeNull();
  });

  it("hands events a worker died with to the partition's next owner, which writes each once", async () => {
    const topic = await createTestTopic(db.prisma, { partitions: 1, configs: compacted });
    const partitionId = topic.partitionIds[0]!;
    await client.produce({ partitionId, records: [{ key: text("warm"), value: text("up") }] });
    proxy.cut();
    const produced = await client.produce({ partitionId, records: [{ key: text("orphan"), value: null }] });
    // Dies with the event queued (Postgres unreachable): only the partition's spool file has it.
    await worker.kill();
    proxy.restore();
    worker = await launch(db.url);
    const found = await eventually("the dead worker's event", 3 * LEASE_TTL_MS + 5_000, async () => {
      const written = await events(topic.organizationId, "tombstones.written");
      return written.length ? written : undefined;
    });
    await worker.auditIdle();
    expect(await events(topic.organizationId, "tombstones.written")).toHaveLength(1);
    expect(found[0]!.data).toMatchObject({
      tombstones: [{ key: { type: "string", data: "orphan" }, offset: produced.offsets[0] }],
    });
    expect(await verifyAuditChain(db.prisma, topic.organizationId)).toBeNull();
  });

  it("writes a taken-over event once: one already in the chain is skipped, a new one is written", async () => {
    const topic = await createTestTopic(db.prisma, { partitions: 1, configs: compacted });
    const dir = await mkdtemp(join(tmpdir(), "lastword-audit-spool-"));
    const partition = {
      partitionId: topic.partitionIds[0]!,
      organizationId: topic.organizationId,
      topicId: topic.topicId,
      topicName: "spooled",
      index: 0,
      dir,
    };
    const logger = pino({ level: "silent" });
    const first = new TombstoneAudit({ prisma: db.prisma, workerId: "w-first", logger });
    first.written({ ...partition, epoch: 1 }, [{ key: text("k1"), offset: 1, timestamp: Date.now() }], 1_000);
    await first.idle();
    const [inChain] = await events(topic.organizationId, "tombstones.written");
    // The first owner's spool as a crash between the insert and the rewrite leaves it, plus one more event.
    const spooled = (id: string, offset: number) => ({
      id,
      event: {
        organizationId: topic.organizationId,
        actor: { type: "system", id: "w-first" },
        action: "tombstones.written",
        target: { type: "partition", id: partition.partitionId },
        data: { eventId: id, tombstones: [{ key: { type: "string", data: `k${offset}` }, offset }] },
        now: new Date().toISOString(),
      },
    });
    const eventId = (inChain!.data as { eventId: string }).eventId;
    await writeFile(
      join(dir, "audit-pending.1.jsonl"),
      `${JSON.stringify(spooled(eventId, 1))}\n${JSON.stringify(spooled("fresh-id", 2))}\n{"torn":`,
    );
    const next = new TombstoneAudit({ prisma: db.prisma, workerId: "w-next", logger });
    next.recover({ ...partition, epoch: 2 });
    await next.idle();
    const written = await events(topic.organizationId, "tombstones.written");
    expect(written.map((e) => (e.data as { eventId: string }).eventId)).toEqual([eventId, "fresh-id"]);
    expect(await readdir(dir)).toEqual([]);
    expect(await verifyAuditChain(db.prisma, topic.organizationId)).toBeNull();
    await rm(dir, { recursive: true, force: true });
  });
});
