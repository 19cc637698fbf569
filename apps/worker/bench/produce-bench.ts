import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DataPlaneClient } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import { PartitionLog } from "@lastword/logstore";
import { seedTenants } from "./bench-topics";

const BATCHES = 80;
const IN_FLIGHT = 4;
const RECORDS_PER_BATCH = 500;
const VALUE_BYTES = 1024;
const SECRET = "bench-secret";
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

function batch(n: number) {
  const value = Buffer.alloc(VALUE_BYTES, n % 251);
  return Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ key: Buffer.from(`key-${n}-${i}`), value }));
}

async function timeIt(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
}

/** Produce of 500 × 1 KiB batches: web-side client → worker process over HTTP, vs append in this process. */
export async function produceBenchmark(options: { db: TestDatabase; dataDir: string }): Promise<void> {
  const batches = Array.from({ length: BATCHES }, (_, n) => batch(n));
  const mib = (BATCHES * RECORDS_PER_BATCH * VALUE_BYTES) / (1 << 20);

  const inProcessDir = join(options.dataDir, "in-process");
  await mkdir(inProcessDir, { recursive: true });
  const log = await PartitionLog.open({ dir: inProcessDir, config: { "segment.bytes": 256 << 20 } });
  const inProcessS = await timeIt(async () => {
    for (const records of batches) await log.append(records);
  });
  const inProcessParallelS = await timeIt(() => inFlight(batches, (records) => log.append(records)));
  await log.close();

  const worker = await spawnWorker(options);
  const client = new DataPlaneClient({ prisma: options.db.prisma, secret: SECRET, ownerWaitMs: 10_000 });
  try {
    const [partitionId] = await seedTenants(options.db.prisma, {
      tenants: 1,
      partitionsPerTenant: 1,
      configs: { "segment.bytes": String(256 << 20) },
      tag: "produce",
    });
    await client.produce({ partitionId: partitionId!, records: batch(0).slice(0, 1) });
    const dataPlaneS = await timeIt(async () => {
      for (const records of batches) await client.produce({ partitionId: partitionId!, records });
    });
    const dataPlaneParallelS = await timeIt(() =>
      inFlight(batches, (records) => client.produce({ partitionId: partitionId!, records })),
    );
    console.log(`\nproduce, ${BATCHES} batches of 500 × 1 KiB to one partition, fsync per batch (MiB/s)`);
    console.log("  in flight | in-process append | DataPlaneClient → worker process | ratio (target ≥ 0.3)");
    const rows: [number, number, number][] = [
      [1, inProcessS, dataPlaneS],
      [IN_FLIGHT, inProcessParallelS, dataPlaneParallelS],
    ];
    for (const [n, local, remote] of rows) {
      console.log(
        `  ${n} | ${(mib / local).toFixed(1)} | ${(mib / remote).toFixed(1)} | ${(local / remote).toFixed(2)}`,
      );
    }
  } finally {
    client.close();
    worker.kill("SIGTERM");
    await new Promise((resolve) => worker.once("exit", resolve));
  }
}

/** Runs `send` over all batches with `IN_FLIGHT` calls outstanding at a time. */
async function inFlight<T>(batches: readonly T[], send: (batch: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: IN_FLIGHT }, async () => {
    while (next < batches.length) await send(batches[next++]!);
  });
  await Promise.all(lanes);
}

function spawnWorker(options: { db: TestDatabase; dataDir: string }): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: options.db.url,
      LASTWORD_DATA_DIR: options.dataDir,
      LASTWORD_INTERNAL_SECRET: SECRET,
      REDIS_PREFIX: `lastword-bench-${process.pid}`,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      if (line.includes('"worker ready"')) resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`bench worker exited with ${code}`)));
  });
}
