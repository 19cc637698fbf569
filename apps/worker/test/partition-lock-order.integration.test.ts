import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { ManualClock } from "@lastword/logstore";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedTenants } from "../bench/bench-topics";
import { type CommitEntry, ManifestRepository } from "../src/durability/manifest.repository";
import { PartitionStatsRepository } from "../src/metrics/partition-stats.repository";
import { LeaseRepository } from "../src/ownership/lease.repository";
import { WorkerRegistry } from "../src/ownership/worker-registry";

// One worker's multi-row statements on a worker-sized set of partitions (800 rows), raced against
// each other on the real Postgres: the manifest commit (entries in the reverse of the table's
// physical order, the order a renewal scans it in), the lease renewal, the stats save and the
// release of everything. Unordered, Postgres aborts one of each colliding pair with 40P01; locking
// in id order first, never.
const WORKER = "lock-order-worker";
const PARTITIONS = 800;
const DEADLOCK = "40P01";
/** The advisory lock key the control's statements queue on to start at the same moment. */
const START_GATE = 35_035;

// The statements as they were before they locked in id order: the control that shows the hazard.
const UNORDERED_COMMIT = `
  WITH input AS (
    SELECT * FROM unnest($2::text[], $3::int[], $4::bigint[]) AS i("partitionId", "epoch", "baseOffset")
  )
  UPDATE "Partition" p SET "durableEndOffset" = i."baseOffset" + 10
  FROM input i
  WHERE p."id" = i."partitionId" AND p."ownerWorkerId" = $1 AND p."leaseEpoch" = i."epoch"
    AND p."durableEndOffset" = i."baseOffset"`;
const UNORDERED_RENEW = `
  UPDATE "Partition" p SET "leaseExpiresAt" = (now() AT TIME ZONE 'UTC') + interval '10 seconds'
  FROM "Topic" t WHERE p."ownerWorkerId" = $1 AND t."id" = p."topicId"`;

interface Held {
  epoch: number;
  end: number;
}

describe("one worker's multi-row Partition statements", () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let leases: LeaseRepository;
  let manifest: ManifestRepository;
  let stats: PartitionStatsRepository;
  const held = new Map<string, Held>();

  /** The held partitions in the reverse of the order a scan of the table meets them. */
  async function reversePhysicalOrder(): Promise<string[]> {
    const rows = await pool.query<{ id: string }>(
      `SELECT "id" FROM "Partition" WHERE "ownerWorkerId" = $1 ORDER BY ctid DESC`,
      [WORKER],
    );
    return rows.rows.map((row) => row.id);
  }

  async function claimAll(): Promise<void> {
    held.clear();
    for (;;) {
      const claimed = await leases.claim(1_000);
      if (claimed.length === 0) break;
      for (const c of claimed) held.set(c.partitionId, { epoch: c.epoch, end: 0 });
    }
    await pool.query(`UPDATE "Partition" SET "durableEndOffset" = 0 WHERE "durableEndOffset" IS NULL`);
    await syncEnds();
  }

  async function syncEnds(): Promise<void> {
    const ends = await pool.query<{ id: string; end: string }>(
      `SELECT "id", "durableEndOffset" AS "end" FROM "Partition" WHERE "ownerWorkerId" = $1`,
      [WORKER],
    );
    for (const row of ends.rows) held.get(row.id)!.end = Number(row.end);
  }

  const entriesFor = (ids: readonly string[]): CommitEntry[] =>
    ids.map((partitionId, i) => {
      const { epoch, end } = held.get(partitionId)!;
      return {
        partitionId,
        epoch,
        baseOffset: end,
        lastOffset: end + 9,
        position: i * 100,
        byteSize: 100,
        sha256: "0".repeat(64),
        startsSegment: false,
      };
    });

  /**
   * Runs each statement on a connection of its own, in a transaction that first locks the row the
   * statement itself updates first (`firstRow`) and then queues on an advisory lock this holds; when
   * every one is queued they all go at once. Each then holds the row the other reaches last, the
   * interleaving that a loaded machine produces by chance: without it, a statement of tens of ms
   * (its updates HOT) often finished before the other was scheduled at all.
   */
  async function startTogether(
    statements: [sql: string, params: unknown[], firstRow: string][],
  ): Promise<PromiseSettledResult<unknown>[]> {
    const gate = await pool.connect();
    try {
      await gate.query("SELECT pg_advisory_lock($1)", [START_GATE]);
      const racing = Promise.allSettled(
        statements.map(async ([sql, params, firstRow]) => {
          const client = await pool.connect();
          try {
            await client.query("BEGIN");
            await client.query(`SELECT 1 FROM "Partition" WHERE "id" = $1 FOR NO KEY UPDATE`, [firstRow]);
            await client.query("SELECT pg_advisory_xact_lock_shared($1)", [START_GATE]);
            const result = await client.query(sql, params);
            await client.query("COMMIT");
            return result;
          } catch (error) {
            await client.query("ROLLBACK");
            throw error;
          } finally {
            client.release();
          }
        }),
      );
      for (;;) {
        const queued = await gate.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks
           WHERE locktype = 'advisory' AND NOT granted AND objid = $1
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          [START_GATE],
        );
        if (queued.rows[0]!.n === statements.length) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await gate.query("SELECT pg_advisory_unlock($1)", [START_GATE]);
      return await racing;
    } finally {
      gate.release();
    }
  }

  const codeOf = (outcome: PromiseSettledResult<unknown>) =>
    outcome.status === "rejected"
      ? String((outcome.reason as { code?: string }).code ?? outcome.reason)
      : null;

  beforeAll(async () => {
    db = await createTestDatabase("lastword_lock_order");
    // Deadlocks are detected after deadlock_timeout (1 s by default): shortened so each collision
    // of the control costs 50 ms, not a second. It changes when a cycle is found, not whether.
    await db.prisma.$executeRawUnsafe(
      `ALTER DATABASE "${new URL(db.url).pathname.slice(1)}" SET deadlock_timeout = '50ms'`,
    );
    // The gate's connection and one per racing statement.
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    // An idle client's connection ended by the database's drop at teardown is not a failure.
    pool.on("error", () => undefined);
    await seedTenants(db.prisma, {
      tenants: 2,
      partitionsPerTenant: PARTITIONS / 2,
      configs: {},
      tag: "lock_order",
    });
    await new WorkerRegistry(db.prisma, WORKER).register("http://10.0.0.1:7100");
    leases = new LeaseRepository(db.prisma, WORKER, 10_000);
    manifest = new ManifestRepository(db.url, WORKER, 2);
    // A clock that stands still: the per-minute samples are written once, the stats row every save.
    stats = new PartitionStatsRepository(db.prisma, WORKER, new ManualClock(Date.UTC(2026, 0, 1)));
    await claimAll();
    expect(held.size).toBe(PARTITIONS);
  });
  afterAll(async () => {
    await manifest?.close();
    await pool?.end();
    await db?.drop();
  });

  it("deadlock when they lock in no common order (the control)", async () => {
    let deadlocks = 0;
    let rounds = 0;
    // Bounded, and stops at the first few: the point is that the hazard is real on this server.
    while (deadlocks < 3 && rounds < 40) {
      rounds++;
      const ids = await reversePhysicalOrder();
      const entries = entriesFor(ids);
      // The commit updates in its entries' order (the reverse of the table's), the renewal in the table's.
      const outcomes = await startTogether([
        [
          UNORDERED_COMMIT,
          [WORKER, ids, entries.map((e) => e.epoch), entries.map((e) => e.baseOffset)],
          ids[0]!,
        ],
        [UNORDERED_RENEW, [WORKER], ids.at(-1)!],
      ]);
      const codes = outcomes.map(codeOf);
      for (const code of codes) expect([null, DEADLOCK]).toContain(code);
      deadlocks += codes.filter((code) => code === DEADLOCK).length;
      // The control commits whatever it got through: read the ends back.
      await syncEnds();
    }
    console.info(`unordered commit vs renewal: ${deadlocks} deadlocks in ${rounds} rounds`);
    expect(deadlocks).toBeGreaterThan(0);
  });

  it("never deadlock once every one locks in id order, and keep the commit's lease and durable-end checks", async () => {
    const ROUNDS = 6;
    for (let round = 0; round < ROUNDS; round++) {
      const ids = await reversePhysicalOrder();
      const entries = entriesFor(ids);
      const saved = new Map(ids.map((id) => [id, statsFor(round)]));
      const outcomes = await Promise.allSettled([
        manifest.commit(`commit/${WORKER}/round-${round}`, entries),
        leases.renewAll(),
        stats.save(saved),
      ]);
      expect(outcomes.map(codeOf)).toEqual([null, null, null]);
      const [committed, renewed] = outcomes.map((o) => (o as PromiseFulfilledResult<unknown>).value) as [
        Set<string>,
        unknown[],
      ];
      expect(committed.size).toBe(PARTITIONS);
      expect(renewed).toHaveLength(PARTITIONS);
      for (const id of ids) held.get(id)!.end += 10;
    }
    const rows = await pool.query<{ id: string; end: string; stats: { segments: number } }>(
      `SELECT "id", "durableEndOffset" AS "end", "stats" FROM "Partition" WHERE "ownerWorkerId" = $1`,
      [WORKER],
    );
    expect(rows.rows).toHaveLength(PARTITIONS);
    for (const row of rows.rows) {
      expect(Number(row.end)).toBe(held.get(row.id)!.end);
      expect(row.stats.segments).toBe(ROUNDS - 1);
    }

    // Still conditional, row by row, in the one statement: a stale epoch, a base that is not the
    // durable end and a partition this worker no longer owns (the commit locks its entries' rows
    // by id, not by owner) are fenced and nothing of them is written; the rest commit.
    const [stale, behind, lost, ...fine] = entriesFor(await reversePhysicalOrder());
    await pool.query(`UPDATE "Partition" SET "ownerWorkerId" = NULL WHERE "id" = $1`, [lost!.partitionId]);
    const checksKey = `commit/${WORKER}/checks`;
    const fenced = await manifest.commit(checksKey, [
      { ...stale!, epoch: stale!.epoch - 1 },
      { ...behind!, baseOffset: behind!.baseOffset - 10, lastOffset: behind!.baseOffset - 1 },
      lost!,
      ...fine,
    ]);
    await pool.query(`UPDATE "Partition" SET "ownerWorkerId" = $2 WHERE "id" = $1`, [
      lost!.partitionId,
      WORKER,
    ]);
    for (const refused of [stale!, behind!, lost!]) expect(fenced.has(refused.partitionId)).toBe(false);
    expect(fenced.size).toBe(PARTITIONS - 3);
    const written = await pool.query<{ partitionId: string }>(
      `SELECT "partitionId" FROM "PartitionObject" WHERE "objectKey" = $1`,
      [checksKey],
    );
    expect(new Set(written.rows.map((row) => row.partitionId))).toEqual(fenced);
    const ends = await pool.query<{ id: string; end: string }>(
      `SELECT "id", "durableEndOffset" AS "end" FROM "Partition" WHERE "id" = ANY($1::text[])`,
      [[stale!.partitionId, behind!.partitionId, lost!.partitionId]],
    );
    for (const row of ends.rows) expect(Number(row.end)).toBe(held.get(row.id)!.end);
    for (const id of fenced) held.get(id)!.end += 10;
  });

  it("release everything while a commit is under way without a deadlock", async () => {
    const ROUNDS = 10;
    for (let round = 0; round < ROUNDS; round++) {
      const entries = entriesFor(await reversePhysicalOrder());
      const outcomes = await Promise.allSettled([
        manifest.commit(`commit/${WORKER}/release-${round}`, entries),
        leases.releaseAll(),
      ]);
      expect(outcomes.map(codeOf)).toEqual([null, null]);
      const [committed, released] = outcomes.map((o) => (o as PromiseFulfilledResult<unknown>).value) as [
        Set<string>,
        number,
      ];
      // Whichever ran first took every row: all committed then released, or all released and fenced.
      expect([0, PARTITIONS]).toContain(committed.size);
      expect(released).toBe(PARTITIONS);
      const owned = await pool.query(`SELECT 1 FROM "Partition" WHERE "ownerWorkerId" IS NOT NULL`);
      expect(owned.rowCount).toBe(0);
      await claimAll();
      expect(held.size).toBe(PARTITIONS);
    }
  });
});

function statsFor(round: number) {
  return {
    sizeBytes: 0,
    segments: round,
    logStartOffset: 0,
    logEndOffset: 0,
    dirtyRatio: 0,
    cleanable: false,
    maxCompactionDelayMs: 0,
    nextCleanDueAt: null,
    lastCleanAt: null,
    uncleanable: null,
    workerId: WORKER,
    updatedAt: new Date(0).toISOString(),
  };
}
