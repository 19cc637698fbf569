import { randomBytes } from "node:crypto";
import { DataPlaneClient } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import { partitionLogOpener } from "../src/hosting/log-opener";
import { startWorker } from "../src/worker";
import { percentile, seedTenants, waitFor } from "./bench-topics";

const TENANTS = 200;
const PARTITIONS_PER_TENANT = 10;
const CROSSINGS = 100;
const CROSSING_SPACING_MS = 100;
const TICK_MS = 5_000;
const SECRET = "bench-secret";

/**
 * 2,000 compacted partitions on one worker with the default 5 s tick: scheduler time per tick, and
 * the delay from a partition crossing its dirty ratio (the ack of the batch that rolls its first
 * segment) to its pass starting (CleanerRun.startedAt), for 100 crossings spread over two ticks.
 */
export async function schedulerBenchmark(options: { db: TestDatabase; dataDir: string }): Promise<void> {
  const partitionIds = await seedTenants(options.db.prisma, {
    tenants: TENANTS,
    partitionsPerTenant: PARTITIONS_PER_TENANT,
    configs: { "cleanup.policy": "compact", "segment.bytes": "1024" },
    tag: "sched",
  });
  const worker = await startWorker({
    databaseUrl: options.db.url,
    dataDir: options.dataDir,
    secret: SECRET,
    openLog: partitionLogOpener({ dedupeBufferBytes: 8 << 20 }),
    logLevel: "warn",
    scheduling: {
      redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      redisPrefix: `lastword-bench-${randomBytes(4).toString("hex")}`,
      tickMs: TICK_MS,
      cleanerThreads: 2,
    },
  });
  const client = new DataPlaneClient({ prisma: options.db.prisma, secret: SECRET });
  try {
    const claimStarted = performance.now();
    await waitFor(
      "2,000 partitions claimed",
      180_000,
      async () => worker.ownedPartitions().length >= partitionIds.length,
    );
    const claimS = (performance.now() - claimStarted) / 1000;
    const crossedAt = await crossDirtyRatio(client, partitionIds.slice(0, CROSSINGS));
    const delays = await passStartDelays(options.db, crossedAt);
    const ticks = await tickMetrics(worker.address);
    console.log(
      `\ncleaner scheduler, ${partitionIds.length} partitions / ${TENANTS} tenants, tick ${TICK_MS} ms`,
    );
    console.log(`  all partitions claimed and opened in ${claimS.toFixed(1)} s`);
    console.log(
      `  tick wall time: mean ${ticks.wallMs.toFixed(1)} ms; process CPU during a tick: mean ${ticks.cpuMs.toFixed(1)} ms (${ticks.count} ticks)`,
    );
    console.log(
      `  crossing the dirty ratio → pass start (${delays.length} partitions): p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms, max ${delays[delays.length - 1]} ms`,
    );
  } finally {
    client.close();
    await worker.stop();
  }
}

async function crossDirtyRatio(
  client: DataPlaneClient,
  partitionIds: readonly string[],
): Promise<Map<string, number>> {
  const crossedAt = new Map<string, number>();
  const records = Array.from({ length: 4 }, (_, i) => ({
    key: Buffer.from(`k${i}`),
    value: Buffer.alloc(120, i),
  }));
  for (const partitionId of partitionIds) {
    await client.produce({ partitionId, records });
    await client.produce({ partitionId, records });
    crossedAt.set(partitionId, Date.now());
    await new Promise((resolve) => setTimeout(resolve, CROSSING_SPACING_MS));
  }
  return crossedAt;
}

async function passStartDelays(db: TestDatabase, crossedAt: ReadonlyMap<string, number>): Promise<number[]> {
  const ids = [...crossedAt.keys()];
  await waitFor("every crossed partition's pass", 4 * TICK_MS + 10_000, async () => {
    const started = await db.prisma.cleanerRun.groupBy({
      by: ["partitionId"],
      where: { partitionId: { in: ids } },
    });
    return started.length === ids.length;
  });
  const runs = await db.prisma.cleanerRun.findMany({
    where: { partitionId: { in: ids } },
    orderBy: { startedAt: "asc" },
  });
  const first = new Map<string, number>();
  for (const run of runs)
    if (!first.has(run.partitionId)) first.set(run.partitionId, run.startedAt.getTime());
  return ids.map((id) => Math.max(0, first.get(id)! - crossedAt.get(id)!)).sort((a, b) => a - b);
}

async function tickMetrics(address: string): Promise<{ wallMs: number; cpuMs: number; count: number }> {
  const text = await (await fetch(`${address}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  const count = value("lastword_scheduler_tick_seconds_count");
  return {
    wallMs: (1000 * value("lastword_scheduler_tick_seconds_sum")) / count,
    cpuMs: (1000 * value("lastword_scheduler_tick_cpu_seconds_sum")) / count,
    count,
  };
}
