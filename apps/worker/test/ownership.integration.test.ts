import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { PartitionLog } from "@lastword/logstore";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { removeOrphanedPartitions } from "../src/ownership/partition-janitor";
import { StorageFence } from "../src/ownership/storage-fence";
import type { RunningWorker, WorkerConfig } from "../src/worker";
import { createTestPartition, createTestTopic, eventually } from "./test-topics";
import { useWorkerHarness } from "./worker-harness";

const LEASE_TTL_MS = 1_500;
const harness = useWorkerHarness({
  name: "ownership",
  ownerWaitMs: 2 * LEASE_TTL_MS + 1_000,
});

function launch(overrides: Partial<WorkerConfig> = {}): Promise<RunningWorker> {
  return harness.startWorker({ leaseTtlMs: LEASE_TTL_MS, claimIntervalMs: 100, ...overrides });
}

/**
 * Two workers with leases far longer than any test (only an ended session or a dropped one can
 * move a partition) and a 4-partition topic, once they own two partitions each.
 */
async function spreadPair() {
  const [a, b] = [await launch({ leaseTtlMs: 120_000 }), await launch({ leaseTtlMs: 120_000 })];
  const topic = await createTestTopic(harness.db.prisma, { partitions: 4 });
  await eventually("spread", 10_000, async () =>
    a.ownedPartitions().length === 2 && b.ownedPartitions().length === 2 ? true : undefined,
  );
  return { a, b, topic };
}

async function owners(partitionIds: readonly string[]): Promise<Map<string, string | null>> {
  const rows = await harness.db.prisma.partition.findMany({ where: { id: { in: [...partitionIds] } } });
  return new Map(rows.map((row) => [row.id, row.ownerWorkerId]));
}

afterEach(async () => {
  await harness.stopWorkers();
  // Each test starts from no topics, so fair shares and counts are its own.
  await harness.db.prisma.topic.deleteMany();
  await harness.db.prisma.worker.updateMany({ where: { stoppedAt: null }, data: { stoppedAt: new Date() } });
});

describe("partition ownership", () => {
  it("claims a new topic's partitions, spread evenly over live workers", async () => {
    // A longer TTL here: under a loaded CI box a 1.5 s heartbeat window can make a live worker look dead.
    const [a, b] = [await launch({ leaseTtlMs: 5_000 }), await launch({ leaseTtlMs: 5_000 })];
    const topic = await createTestTopic(harness.db.prisma, { partitions: 6 });
    // Claimed on the next 100 ms claim ticks; the timeout is only how long to wait before failing.
    await eventually("all partitions owned", 10_000, async () => {
      const map = await owners(topic.partitionIds);
      return [...map.values()].every((owner) => owner !== null) ? true : undefined;
    });
    await eventually("both workers hosting", 1_000, async () =>
      a!.ownedPartitions().length + b!.ownedPartitions().length === 6 ? true : undefined,
    );
    expect(a!.ownedPartitions()).toHaveLength(3);
    expect(b!.ownedPartitions()).toHaveLength(3);
    const epochs = await harness.db.prisma.partition.findMany({ where: { topicId: topic.topicId } });
    expect(epochs.every((p) => p.leaseEpoch === 1)).toBe(true);
  });

  it("hands a killed worker's partitions over, without losing an acknowledged record", async () => {
    const [a, b] = [await launch(), await launch()];
    const topic = await createTestTopic(harness.db.prisma, { partitions: 4 });
    await eventually("partitions spread", 2_000, async () =>
      a!.ownedPartitions().length === 2 && b!.ownedPartitions().length === 2 ? true : undefined,
    );
    const acked = new Map<string, Map<number, string>>(topic.partitionIds.map((id) => [id, new Map()]));
    let producing = true;
    let failures = 0;
    const producers = topic.partitionIds.map(async (partitionId) => {
      for (let n = 0; producing; n++) {
        const value = `${partitionId}:${n}`;
        try {
          const result = await harness.client.produce({
            partitionId,
            records: [{ key: null, value: Buffer.from(value) }],
          });
          acked.get(partitionId)!.set(result.offsets[0]!, value);
        } catch (error) {
          expect(error).toMatchObject({ retriable: true });
          failures++;
        }
      }
    });
    await eventually("records acknowledged on every partition", 10_000, async () =>
      [...acked.values()].every((records) => records.size > 0) ? true : undefined,
    );
    const victims = a!.ownedPartitions();
    await a!.kill();
    // Its session's end (or at worst its leases' expiry on the database's clock): waited for, not timed.
    await eventually("takeover", 10 * LEASE_TTL_MS, async () =>
      victims.every((id) => b!.ownedPartitions().includes(id)) ? true : undefined,
    );
    // Producing goes on through the new owner: more records acknowledged on every moved partition.
    const atTakeover = new Map(victims.map((id) => [id, acked.get(id)!.size]));
    await eventually("records acknowledged by the new owner", 10_000, async () =>
      victims.every((id) => acked.get(id)!.size > atTakeover.get(id)!) ? true : undefined,
    );
    producing = false;
    await Promise.all(producers);

    for (const [partitionId, records] of acked) {
      expect(records.size).toBeGreaterThan(0);
      const fetched = await harness.client.fetch({
        partitionId,
        offset: 0,
        limit: 10_000,
        maxBytes: 16 << 20,
      });
      const stored = new Map(fetched.records.map((r) => [r.offset, r.value!.toString()]));
      for (const [offset, value] of records) expect(stored.get(offset)).toBe(value);
    }
    const moved = await harness.db.prisma.partition.findMany({ where: { id: { in: victims } } });
    expect(moved.every((p) => p.leaseEpoch === 2 && p.ownerWorkerId === b!.id)).toBe(true);
    expect(failures).toBeLessThan(50);
  });

  it("refuses a write from a worker whose lease was taken over (fencing) and closes the partition", async () => {
    const a = await launch();
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    await harness.client.produce({ partitionId, records: [{ key: null, value: Buffer.from("before") }] });
    // Another worker takes the partition over: a new owner and a higher epoch, as a claim does.
    await harness.db.prisma.worker.create({ data: { id: "usurper", address: "http://127.0.0.1:9" } });
    await harness.db.prisma.partition.update({
      where: { id: partitionId },
      data: {
        ownerWorkerId: "usurper",
        leaseEpoch: { increment: 1 },
        leaseExpiresAt: new Date(Date.now() + 60_000),
      },
    });
    const response = await fetch(`${a.address}/v1/partitions/${partitionId}/produce`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-lastword-secret": harness.secret },
      body: JSON.stringify({ records: [{ key: null, value: Buffer.from("stale").toString("base64") }] }),
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: "NOT_OWNER", retriable: true });
    await eventually("partition closed", 1_000, async () =>
      a.ownedPartitions().length === 0 ? true : undefined,
    );
    const log = await PartitionLog.open({
      dir: join(harness.dataDir, topic.organizationId, topic.topicId, "0"),
    });
    try {
      expect(log.logEndOffset).toBe(1);
    } finally {
      await log.close();
    }
  });

  it("a new owner opens the log as soon as its epoch is written: every append the earlier owner acknowledged is in it", async () => {
    const a = await launch();
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    const value = (text: string) => ({ key: null, value: Buffer.from(text) });
    await harness.client.produce({ partitionId, records: [value("first")] });
    const { leaseEpoch } = await harness.db.prisma.partition.findUniqueOrThrow({
      where: { id: partitionId },
    });
    const dir = join(harness.dataDir, topic.organizationId, topic.topicId, "0");
    // Appends queued behind one another's fsyncs on the earlier owner while the new one takes over.
    const acked: string[] = [];
    const refused: string[] = [];
    const produces = Array.from({ length: 40 }, (_, i) =>
      harness.client.produce({ partitionId, records: [value(`v${i}`)] }).then(
        () => acked.push(`v${i}`),
        () => refused.push(`v${i}`),
      ),
    );
    await Promise.race(produces);
    // The takeover as a claim makes it: the row (a higher epoch), then that epoch into the directory.
    await harness.db.prisma.worker.create({ data: { id: "usurper-2", address: "http://127.0.0.1:9" } });
    await harness.db.prisma.partition.update({
      where: { id: partitionId },
      data: {
        ownerWorkerId: "usurper-2",
        leaseEpoch: leaseEpoch + 1,
        leaseExpiresAt: new Date(Date.now() + 60_000),
      },
    });
    await StorageFence.claim(dir, leaseEpoch + 1, "usurper-2");
    const log = await PartitionLog.open({ dir });
    let opened: string[];
    try {
      opened = (await log.read(0, { maxRecords: 1_000 })).map((r) => r.value!.toString());
    } finally {
      await log.close();
    }
    await Promise.all(produces);
    expect(acked.length + refused.length).toBe(40);
    // Nothing acknowledged is missing from what the new owner opened, and nothing refused is in it.
    expect(opened).toEqual(expect.arrayContaining(["first", ...acked]));
    expect(opened.filter((v) => refused.includes(v))).toEqual([]);
    await eventually("partition closed", 1_000, async () =>
      a.ownedPartitions().length === 0 ? true : undefined,
    );
  });

  it("claims a killed worker's partitions as soon as its database session ends, long before its leases expire", async () => {
    // Leases far longer than the test: only the ended session can explain a takeover.
    const { a, b, topic } = await spreadPair();
    const victims = a.ownedPartitions();
    for (const partitionId of victims) {
      await harness.client.produce({ partitionId, records: [{ key: null, value: Buffer.from("before") }] });
    }
    const leasesBefore = await harness.db.prisma.partition.findMany({ where: { id: { in: victims } } });
    await a.kill();
    await eventually("b claimed a's partitions", 30_000, async () =>
      victims.every((id) => b.ownedPartitions().includes(id)) ? true : undefined,
    );
    const [clock] = await harness.db.prisma.$queryRaw<
      { now: Date }[]
    >`SELECT (now() AT TIME ZONE 'UTC') AS now`;
    for (const lease of leasesBefore)
      expect(lease.leaseExpiresAt!.getTime()).toBeGreaterThan(clock!.now.getTime());
    // Through the ordinary claim: a new epoch, and the records a acknowledged are there.
    const moved = await harness.db.prisma.partition.findMany({ where: { id: { in: victims } } });
    expect(moved.every((p) => p.ownerWorkerId === b.id && p.leaseEpoch === 2)).toBe(true);
    for (const partitionId of victims) {
      const result = await harness.client.produce({
        partitionId,
        records: [{ key: null, value: Buffer.from("after") }],
      });
      expect(result.offsets).toEqual([1]);
    }
    expect(topic.partitionIds).toHaveLength(4);
  });

  it("a live worker whose session drops loses its partitions to a peer, whose epoch fences its writes, and takes its session back", async () => {
    const { a, b, topic } = await spreadPair();
    const victims = a.ownedPartitions();
    const { nodeId } = await harness.db.prisma.worker.findUniqueOrThrow({ where: { id: a.id } });
    // What a network blip or a restarted pgbouncer would do to a's session connection alone.
    const sessionHeld = async () =>
      (
        await harness.db.prisma.$queryRaw<{ held: boolean }[]>`
          SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
            AND objid = ${nodeId}::oid AND database = (SELECT oid FROM pg_database WHERE datname = current_database())) AS held`
      )[0]!.held;
    expect(await sessionHeld()).toBe(true);
    // Ended again each time a reconnects, until b (once its own session has settled) noticed.
    await eventually("b claimed a's partitions", 30_000, async () => {
      await harness.db.prisma.$queryRaw`
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = ${`lastword-worker-session-${nodeId}`} AND datname = current_database()`;
      return victims.every((id) => b.ownedPartitions().includes(id)) ? true : undefined;
    });
    // a still hosts them until its next renewal: a write there is refused by the new epoch.
    const stale = await fetch(`${a.address}/v1/partitions/${victims[0]}/produce`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-lastword-secret": harness.secret },
      body: JSON.stringify({ records: [{ key: null, value: Buffer.from("stale").toString("base64") }] }),
    });
    expect([404, 409]).toContain(stale.status);
    expect(await stale.json()).toMatchObject({ code: "NOT_OWNER" });
    // a locks its session again and counts as live: the partitions are shared out once more. Read
    // in the lease rows: a keeps hosting the ones it lost until its next renewal (TTL / 3 = 40 s
    // here) finds them gone, but they are b's, and every write there is fenced (above).
    await eventually("a's session back", 10_000, async () => ((await sessionHeld()) ? true : undefined));
    await eventually("balanced again", 20_000, async () => {
      const rows = await harness.db.prisma.partition.findMany({ where: { topicId: topic.topicId } });
      const held = (id: string) => rows.filter((row) => row.ownerWorkerId === id).length;
      return held(a.id) === 2 && held(b.id) === 2 ? true : undefined;
    });
    for (const partitionId of topic.partitionIds) {
      const written = await harness.client.produce({ partitionId, records: [{ key: null, value: null }] });
      expect(written.offsets).toHaveLength(1);
    }
  });

  it("every session dropping at once (as when Postgres restarts) moves no partition: a worker whose own session is young does not judge its peers by theirs", async () => {
    const { topic } = await spreadPair();
    const before = await harness.db.prisma.partition.findMany({ where: { topicId: topic.topicId } });
    const sessions = `lastword-worker-session-%`;
    await harness.db.prisma.$queryRaw`
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE application_name LIKE ${sessions} AND datname = current_database()`;
    // Both back, and held for longer than the settling time: peers' sessions count again.
    await eventually("both sessions back and settled", 20_000, async () => {
      const [row] = await harness.db.prisma.$queryRaw<{ settled: number }[]>`
        SELECT count(*)::int AS settled FROM pg_stat_activity
        WHERE application_name LIKE ${sessions} AND datname = current_database()
          AND backend_start < now() - interval '3 seconds'`;
      return row!.settled === 2 ? true : undefined;
    });
    const after = await harness.db.prisma.partition.findMany({ where: { topicId: topic.topicId } });
    expect(after.map((p) => [p.id, p.ownerWorkerId, p.leaseEpoch]).sort()).toEqual(
      before.map((p) => [p.id, p.ownerWorkerId, p.leaseEpoch]).sort(),
    );
  });

  it("a worker hears of released partitions (NOTIFY) and claims them at once, not at its next claim tick", async () => {
    const a = await launch({ leaseTtlMs: 120_000 });
    const topic = await createTestTopic(harness.db.prisma, { partitions: 4 });
    await eventually("a owns all", 10_000, async () => (a.ownedPartitions().length === 4 ? true : undefined));
    // b's own ticks are a minute apart: only the announcements can bring it partitions sooner.
    const b = await launch({ leaseTtlMs: 120_000, claimIntervalMs: 60_000 });
    // a hands partitions back for balance, one per tick, each announced.
    await eventually("balanced", 20_000, async () =>
      a.ownedPartitions().length === 2 && b.ownedPartitions().length === 2 ? true : undefined,
    );
    await a.stop();
    await eventually("b owns all", 20_000, async () => (b.ownedPartitions().length === 4 ? true : undefined));
    const rows = await harness.db.prisma.partition.findMany({ where: { topicId: topic.topicId } });
    expect(rows.every((p) => p.ownerWorkerId === b.id)).toBe(true);
  });

  it("releases leases on a graceful stop so another worker claims them long before expiry", async () => {
    const [a, b] = [await launch({ leaseTtlMs: 10_000 }), await launch({ leaseTtlMs: 10_000 })];
    const topic = await createTestTopic(harness.db.prisma, { partitions: 4 });
    await eventually("spread", 2_000, async () => (a!.ownedPartitions().length === 2 ? true : undefined));
    const released = a!.ownedPartitions();
    await a!.stop();
    // Given back when the stop returns, not left to expire (10 s): nobody owns them or b already does.
    const after = await owners(released);
    expect([...after.values()].every((owner) => owner === null || owner === b!.id)).toBe(true);
    await eventually("b owns all", 10_000, async () =>
      b!.ownedPartitions().length === 4 ? true : undefined,
    );
    const worker = await harness.db.prisma.worker.findUniqueOrThrow({ where: { id: a!.id } });
    expect(worker.stoppedAt).not.toBeNull();
    const result = await harness.client.produce({
      partitionId: topic.partitionIds[0]!,
      records: [{ key: null, value: null }],
    });
    expect(result.offsets).toHaveLength(1);
  });

  it("moves partitions to a worker that joins later until both hold their fair share", async () => {
    const a = await launch({ leaseTtlMs: 5_000 });
    const topic = await createTestTopic(harness.db.prisma, { partitions: 6 });
    await eventually("a owns all", 2_000, async () => (a.ownedPartitions().length === 6 ? true : undefined));
    // The client now has \`a\` cached as every partition's owner.
    for (const partitionId of topic.partitionIds) {
      await harness.client.produce({ partitionId, records: [{ key: null, value: Buffer.from("before") }] });
    }
    const b = await launch({ leaseTtlMs: 5_000 });
    await eventually("balanced", 8_000, async () =>
      a.ownedPartitions().length === 3 && b.ownedPartitions().length === 3 ? true : undefined,
    );
    // Half of them moved: the cached owner answers NOT_OWNER to the 200 KiB batch and the client
    // resends it once to the new owner; nothing was appended by the old one.
    const records = Array.from({ length: 200 }, () => ({ key: null, value: Buffer.alloc(1024, 7) }));
    for (const partitionId of topic.partitionIds) {
      const result = await harness.client.produce({ partitionId, records });
      expect(result.offsets).toEqual(Array.from({ length: 200 }, (_, i) => 1 + i));
    }
  });

  it("reopens a partition with the topic's new config", async () => {
    await launch();
    const topic = await createTestPartition(harness.db.prisma, { "cleanup.policy": "delete" });
    const { partitionId } = topic;
    await harness.client.produce({
      partitionId,
      records: [{ key: null, value: Buffer.from("unkeyed is fine here") }],
    });
    await harness.db.prisma.topic.update({
      where: { id: topic.topicId },
      data: { configs: { "cleanup.policy": "compact" } },
    });
    await eventually("compaction config in force", 3_000, async () => {
      const attempt = await harness.client
        .produce({ partitionId, records: [{ key: null, value: Buffer.from("x") }] })
        .then(() => "accepted")
        .catch((error: { code?: string }) => error.code);
      return attempt === "INVALID_RECORD" ? true : undefined;
    });
  });

  it("removes a deleted topic's files, whether its owner sees the deletion or the janitor does", async () => {
    const a = await launch();
    const topic = await createTestTopic(harness.db.prisma, { partitions: 2 });
    await harness.client.produce({
      partitionId: topic.partitionIds[0]!,
      records: [{ key: null, value: Buffer.from("v") }],
    });
    const dir = join(harness.dataDir, topic.organizationId, topic.topicId, "0");
    expect(existsSync(dir)).toBe(true);
    await harness.db.prisma.topic.delete({ where: { id: topic.topicId } });
    await eventually("files removed", 3_000, async () => (existsSync(dir) ? undefined : true));
    expect(a.ownedPartitions()).toHaveLength(0);

    const survivor = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const strayTopic = join(harness.dataDir, survivor.organizationId, "deletedtopic", "0");
    const strayPartition = join(harness.dataDir, survivor.organizationId, survivor.topicId, "7");
    const kept = join(harness.dataDir, survivor.organizationId, survivor.topicId, "0");
    await Promise.all([strayTopic, strayPartition, kept].map((d) => mkdir(d, { recursive: true })));
    const removed = await removeOrphanedPartitions(
      harness.dataDir,
      harness.db.prisma,
      pino({ level: "silent" }),
    );
    expect(removed).toEqual(
      expect.arrayContaining([
        join(harness.dataDir, survivor.organizationId, "deletedtopic"),
        strayPartition,
      ]),
    );
    expect(existsSync(kept)).toBe(true);
  });
});
