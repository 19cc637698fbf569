import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@lastword/db";
import { commitObjectKey } from "../src/durability/bucket-layout";
import { type CommitEntry, ManifestRepository } from "../src/durability/manifest.repository";
import { LeaseRepository } from "../src/ownership/lease.repository";
import { WorkerRegistry } from "../src/ownership/worker-registry";
import { DEFAULT_CLAIM_INTERVAL_MS, DEFAULT_LEASE_TTL_MS } from "../src/worker";
import { percentile, seedTenants } from "./bench-topics";

/**
 * The Postgres side of a fleet, simulated: `workers` async loops in this process, each issuing the
 * statements a worker issues, from the worker's own repositories, at the worker's cadences —
 * OwnershipLoop's claim tick (the load snapshot every claim interval; heartbeat and renewal of
 * every held lease every TTL/3) and CommitWindow's flush (one manifest commit per window carrying
 * every partition appended to since the last one). No logs, no object store: only what Postgres sees.
 */
export interface FleetSimOptions {
  databaseUrl: string;
  prisma: PrismaClient;
  partitions: number;
  workers: number;
  /** Produces per second to each partition (spread at random over the windows); 0 = an idle fleet. */
  producesPerPartitionPerSecond: number;
  warmupMs: number;
  measureMs: number;
  leaseTtlMs?: number;
  claimIntervalMs?: number;
  /** WORKER_COMMIT_WINDOW_MS (default 10). */
  commitWindowMs?: number;
  /** Partitions are seeded once per database: a second run on it passes false (same tag: the same workers). */
  seed?: boolean;
  tag?: string;
}

export type StatementKind = "commit" | "renew" | "heartbeat" | "snapshot";

export interface StatementFigures {
  count: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface FleetSimResult {
  statements: Record<StatementKind, StatementFigures>;
  statementsPerSecond: number;
  /** Partition commits offered (produce rate × partitions, at most one per partition per window) and done, per second. */
  offeredPartitionCommitsPerSecond: number;
  partitionCommitsPerSecond: number;
  /** From one window's flush to the next of the same worker: a produce waits up to one period plus its commit. */
  windowPeriodP50Ms: number;
  windowPeriodP99Ms: number;
  /** Commit entries refused and not held at that epoch any more: nobody takes over here, so only a lease that expired. */
  fenced: number;
  /** Statements that failed, by kind and SQLSTATE ("commit 40P01": a deadlock), in the measured span. */
  failures: Map<string, number>;
  /** This process's CPU over the measured span, in cores (the simulation shares the machine with Postgres). */
  simulatorCores: number;
  /** What the simulated workers believe each partition's durable end is (the smoke test compares it to Postgres). */
  durableEnds: Map<string, number>;
  committedEntries: number;
}

/** OwnershipLoop renews every TTL/3 (never more often than every 100 ms). */
const renewIntervalMs = (ttlMs: number) => Math.max(100, Math.floor(ttlMs / 3));
const RECORDS_PER_PRODUCE = 10;
const BYTES_PER_PRODUCE = RECORDS_PER_PRODUCE * 1_200;
const SHA256 = randomBytes(32).toString("hex");

interface Held {
  partitionId: string;
  epoch: number;
  end: number;
}

interface Samples {
  latencies: Record<StatementKind, number[]>;
  periods: number[];
  failures: Map<string, number>;
  partitionCommits: number;
  fenced: number;
}

export async function simulateFleet(options: FleetSimOptions): Promise<FleetSimResult> {
  const leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const claimIntervalMs = options.claimIntervalMs ?? DEFAULT_CLAIM_INTERVAL_MS;
  const windowMs = options.commitWindowMs ?? 10;
  const tag = options.tag ?? "fleet";
  if (options.seed !== false) await seedFleet(options.prisma, options.partitions, tag);

  const workers = await Promise.all(
    Array.from({ length: options.workers }, async (_, i) => {
      const id = `sim-${tag}-${i}`;
      const registry = new WorkerRegistry(options.prisma, id);
      await registry.register(`http://10.0.${i >> 8}.${i & 255}:7100`);
      // One connection each: a worker's windows never overlap, so its commits are sequential anyway.
      return {
        id,
        registry,
        leases: new LeaseRepository(options.prisma, id, leaseTtlMs),
        manifest: new ManifestRepository(options.databaseUrl, id, 1),
        held: [] as Held[],
      };
    }),
  );
  // The initial spread, each worker taking its share with the real claim; then every manifest
  // starts at 0 (what ManifestRepository.start does per partition at first open).
  const share = Math.ceil(options.partitions / options.workers);
  for (const worker of workers) {
    await worker.leases.releaseAll();
    for (let taken = 0; taken < share; ) {
      const claimed = await worker.leases.claim(Math.min(1_000, share - taken));
      if (claimed.length === 0) break;
      taken += claimed.length;
      for (const c of claimed) worker.held.push({ partitionId: c.partitionId, epoch: c.epoch, end: 0 });
    }
  }
  await options.prisma.$executeRaw`
    UPDATE "Partition" SET "durableEndOffset" = 0
    WHERE "ownerWorkerId" LIKE ${`sim-${tag}-%`} AND "durableEndOffset" IS NULL`;
  const ends = await options.prisma.$queryRaw<{ id: string; end: bigint }[]>`
    SELECT "id", "durableEndOffset" AS "end" FROM "Partition" WHERE "ownerWorkerId" LIKE ${`sim-${tag}-%`}`;
  const endOf = new Map(ends.map((row) => [row.id, Number(row.end)]));
  for (const held of workers.flatMap((worker) => worker.held)) held.end = endOf.get(held.partitionId) ?? 0;

  const samples: Samples = {
    latencies: { commit: [], renew: [], heartbeat: [], snapshot: [] },
    periods: [],
    failures: new Map(),
    partitionCommits: 0,
    fenced: 0,
  };
  const startedAt = performance.now();
  const measureFrom = startedAt + options.warmupMs;
  const stopAt = measureFrom + options.measureMs;
  const measuring = (at: number) => at >= measureFrom && at < stopAt;
  // A failed statement is what the worker survives too (CommitWindow retries the window,
  // OwnershipLoop the tick): counted by its SQLSTATE, and the loop goes on.
  const timed = async <T>(kind: StatementKind, run: () => Promise<T>): Promise<T | undefined> => {
    const at = performance.now();
    try {
      const result = await run();
      if (measuring(at)) samples.latencies[kind].push(performance.now() - at);
      return result;
    } catch (error) {
      const code = (error as { code?: string }).code ?? (error as Error).message;
      const name = `${kind} ${code}`;
      if (measuring(at)) samples.failures.set(name, (samples.failures.get(name) ?? 0) + 1);
      return undefined;
    }
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

  const ownershipLoop = async (worker: (typeof workers)[number]) => {
    // Workers start at different moments: spread their first ticks over one renewal interval.
    await sleep(Math.random() * renewIntervalMs(leaseTtlMs));
    let lastRenewAt = Number.NEGATIVE_INFINITY;
    while (performance.now() < stopAt) {
      const tickAt = performance.now();
      if (tickAt - lastRenewAt >= renewIntervalMs(leaseTtlMs)) {
        lastRenewAt = tickAt;
        const alive = await timed("heartbeat", () => worker.registry.heartbeat());
        if (alive === false) throw new Error(`${worker.id}: its Worker row is gone`);
        const renewed = await timed("renew", () => worker.leases.renewAll());
        if (renewed && renewed.length !== worker.held.length) {
          throw new Error(`${worker.id}: renewed ${renewed.length} leases, holds ${worker.held.length}`);
        }
      }
      await timed("snapshot", () => worker.leases.loadSnapshot());
      await sleep(claimIntervalMs - (performance.now() - tickAt));
    }
  };

  const rate = options.producesPerPartitionPerSecond;
  const commitLoop = async (worker: (typeof workers)[number]) => {
    if (rate <= 0 || worker.held.length === 0) return;
    await sleep(Math.random() * windowMs);
    let lastFlushAt = performance.now();
    let retry: Held[] = [];
    while (performance.now() < stopAt) {
      await sleep(windowMs);
      const flushAt = performance.now();
      if (measuring(flushAt)) samples.periods.push(flushAt - lastFlushAt);
      // A failed window's partitions go again in the next one, as CommitWindow keeps them dirty.
      const dirty = [
        ...new Set([
          ...retry,
          ...pickDirty(worker.held, 1 - Math.exp((-rate * (flushAt - lastFlushAt)) / 1000)),
        ]),
      ];
      retry = [];
      lastFlushAt = flushAt;
      if (dirty.length === 0) continue;
      const entries = produceOnEach(dirty);
      const committed = await timed("commit", () =>
        worker.manifest.commit(commitObjectKey(worker.id), entries),
      );
      if (!committed) {
        retry = dirty;
        continue;
      }
      // As CommitWindow: a partition the commit did not move may still be ours with its end moved
      // by an earlier commit whose answer was lost (a statement timed out after committing).
      const missed = entries.filter((entry) => !committed.has(entry.partitionId));
      const stillHeld =
        missed.length > 0 ? await worker.manifest.heldEnds(missed).catch(() => new Map()) : new Map();
      let fenced = 0;
      for (const held of dirty) {
        if (committed.has(held.partitionId)) held.end += RECORDS_PER_PRODUCE;
        else if (stillHeld.has(held.partitionId)) held.end = stillHeld.get(held.partitionId)!;
        else fenced++;
      }
      if (measuring(flushAt)) {
        samples.partitionCommits += committed.size;
        samples.fenced += fenced;
      }
    }
  };

  const cpuBefore = process.cpuUsage();
  try {
    await Promise.all(workers.flatMap((worker) => [ownershipLoop(worker), commitLoop(worker)]));
  } finally {
    await Promise.all(workers.map((worker) => worker.manifest.close()));
  }
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = options.measureMs / 1000;
  const figures = (values: number[]): StatementFigures => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      count: values.length,
      perSecond: values.length / seconds,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
    };
  };
  const statements = {
    commit: figures(samples.latencies.commit),
    renew: figures(samples.latencies.renew),
    heartbeat: figures(samples.latencies.heartbeat),
    snapshot: figures(samples.latencies.snapshot),
  };
  const periods = [...samples.periods].sort((a, b) => a - b);
  const allHeld = workers.flatMap((worker) => worker.held);
  return {
    statements,
    statementsPerSecond: Object.values(statements).reduce((sum, s) => sum + s.perSecond, 0),
    offeredPartitionCommitsPerSecond: rate * allHeld.length,
    partitionCommitsPerSecond: samples.partitionCommits / seconds,
    windowPeriodP50Ms: percentile(periods, 50),
    windowPeriodP99Ms: percentile(periods, 99),
    fenced: samples.fenced,
    failures: samples.failures,
    simulatorCores: (cpu.user + cpu.system) / 1000 / (performance.now() - startedAt),
    durableEnds: new Map(allHeld.map((held) => [held.partitionId, held.end])),
    committedEntries: allHeld.reduce((sum, held) => sum + held.end / RECORDS_PER_PRODUCE, 0),
  };
}

/** Topics of up to 1,000 partitions each, as many as `partitions` needs. */
async function seedFleet(prisma: PrismaClient, partitions: number, tag: string): Promise<void> {
  const perTopic = Math.min(1_000, partitions);
  const topics = Math.ceil(partitions / perTopic);
  for (let done = 0; done < topics; done += 10) {
    await seedTenants(prisma, {
      tenants: Math.min(10, topics - done),
      partitionsPerTenant: perTopic,
      configs: {},
      tag: `${tag}_${done}`,
    });
  }
}

/** One produce's commit entry for each partition, laid out one after another in the commit object. */
function produceOnEach(held: readonly Held[]): CommitEntry[] {
  return held.map((partition, i) => ({
    partitionId: partition.partitionId,
    epoch: partition.epoch,
    baseOffset: partition.end,
    lastOffset: partition.end + RECORDS_PER_PRODUCE - 1,
    position: i * BYTES_PER_PRODUCE,
    byteSize: BYTES_PER_PRODUCE,
    sha256: SHA256,
    startsSegment: false,
  }));
}

/** Each held partition independently with probability `p` (a produce arrived since the last window). */
function pickDirty(held: readonly Held[], p: number): Held[] {
  if (p >= 1) return [...held];
  const dirty: Held[] = [];
  // Geometric skips: O(picked), not O(held), so a 2,000-partition worker stays cheap at 10 ms windows.
  const skip = () => Math.floor(Math.log(1 - Math.random()) / Math.log(1 - p));
  for (let i = skip(); i < held.length; i += 1 + skip()) dirty.push(held[i]!);
  return dirty;
}

export interface StatementFloor {
  /** Partition commits per second with every connection committing its worker's whole share, back to back. */
  commitRowsPerSecond: number;
  /** Lease rows renewed per second, the same way. */
  renewRowsPerSecond: number;
  /** One load snapshot on its own (median of a few), the cost every worker pays per claim tick. */
  snapshotMs: number;
}

/**
 * What this Postgres does at most with the simulation's statements, nothing else running: `connections`
 * of the simulated workers (a fleet `simulateFleet` left behind, same tag) each commit every
 * partition they hold in one statement, again as soon as it returns, for `durationMs`; then renew
 * the same way; then time a snapshot alone. The rows per second are the ceiling of the fleet's
 * partition commits per second on this server, whatever the batching.
 */
export async function measureStatementFloor(options: {
  databaseUrl: string;
  prisma: PrismaClient;
  connections: number;
  durationMs: number;
  tag?: string;
}): Promise<StatementFloor> {
  const tag = options.tag ?? "fleet";
  const workers = await Promise.all(
    Array.from({ length: options.connections }, async (_, i) => {
      const id = `sim-${tag}-${i}`;
      const rows = await options.prisma.$queryRaw<{ id: string; epoch: number; end: bigint }[]>`
        SELECT "id", "leaseEpoch" AS "epoch", "durableEndOffset" AS "end" FROM "Partition" WHERE "ownerWorkerId" = ${id}`;
      return {
        id,
        manifest: new ManifestRepository(options.databaseUrl, id, 1),
        leases: new LeaseRepository(options.prisma, id, DEFAULT_LEASE_TTL_MS),
        held: rows.map((row) => ({ partitionId: row.id, epoch: row.epoch, end: Number(row.end) })),
      };
    }),
  );
  const backToBack = async (run: (worker: (typeof workers)[number]) => Promise<number>) => {
    const startedAt = performance.now();
    const rows = await Promise.all(
      workers.map(async (worker) => {
        let done = 0;
        while (performance.now() - startedAt < options.durationMs) done += await run(worker);
        return done;
      }),
    );
    return rows.reduce((sum, n) => sum + n, 0) / ((performance.now() - startedAt) / 1000);
  };
  try {
    const commitRowsPerSecond = await backToBack(async (worker) => {
      const entries = produceOnEach(worker.held);
      const committed = await worker.manifest.commit(commitObjectKey(worker.id), entries);
      if (committed.size !== entries.length) {
        throw new Error(`${worker.id}: committed ${committed.size} of ${entries.length}`);
      }
      for (const held of worker.held) held.end += RECORDS_PER_PRODUCE;
      return committed.size;
    });
    const renewRowsPerSecond = await backToBack(async (worker) => (await worker.leases.renewAll()).length);
    const snapshots: number[] = [];
    for (let i = 0; i < 5; i++) {
      const at = performance.now();
      await workers[0]!.leases.loadSnapshot();
      snapshots.push(performance.now() - at);
    }
    return {
      commitRowsPerSecond,
      renewRowsPerSecond,
      snapshotMs: percentile(
        snapshots.sort((a, b) => a - b),
        50,
      ),
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.manifest.close()));
  }
}
