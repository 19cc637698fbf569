import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DataPlaneClient } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import { PartitionLog } from "@lastword/logstore";
import { seedTenants } from "./bench-topics";

const BATCHES = 40;
const ROUNDS = 5;
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

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/**
 * Produce of 500 × 1 KiB batches: web-side client → worker process over HTTP, vs append in this
 * process. The two alternate in rounds of BATCHES batches (after one warm-up round each), so both
 * see the same machine; the ratio is computed per round and its median reported.
 */
export async function produceBenchmark(options: { db: TestDatabase; dataDir: string }): Promise<void> {
  const batches = Array.from({ length: BATCHES }, (_, n) => batch(n));
  const mib = (BATCHES * RECORDS_PER_BATCH * VALUE_BYTES) / (1 << 20);

  const inProcessDir = join(options.dataDir, "in-process");
  await mkdir(inProcessDir, { recursive: true });
  const log = await PartitionLog.open({ dir: inProcessDir, config: { "segment.bytes": 256 << 20 } });
  const worker = await spawnWorker(options);
  const client = new DataPlaneClient({ prisma: options.db.prisma, secret: SECRET, ownerWaitMs: 10_000 });
  try {
    const [partitionId] = await seedTenants(options.db.prisma, {
      tenants: 1,
      partitionsPerTenant: 1,
      configs: { "segment.bytes": String(256 << 20) },
      tag: "produce",
    });
    const local = (records: ReturnType<typeof batch>) => log.append(records);
    const remote = (records: ReturnType<typeof batch>) =>
      client.produce({ partitionId: partitionId!, records });
    await inFlight(batches, IN_FLIGHT, local);
    await inFlight(batches, IN_FLIGHT, remote);
    console.log(
      `\nproduce, ${ROUNDS} alternating rounds of ${BATCHES} batches of 500 × 1 KiB to one partition, fsync per batch`,
    );
    console.log(
      "  in flight | in-process append MiB/s | DataPlaneClient → worker process MiB/s | ratio median (min–max), target ≥ 0.3",
    );
    for (const lanes of [1, IN_FLIGHT]) {
      const localS: number[] = [];
      const remoteS: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        localS.push(await timeIt(() => inFlight(batches, lanes, local)));
        remoteS.push(await timeIt(() => inFlight(batches, lanes, remote)));
      }
      const ratios = localS.map((l, i) => l / remoteS[i]!);
      console.log(
        `  ${lanes} | ${(mib / median(localS)).toFixed(1)} | ${(mib / median(remoteS)).toFixed(1)} | ` +
          `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
      );
    }
  } finally {
    await log.close();
    client.close();
    worker.kill("SIGTERM");
    await new Promise((resolve) => worker.once("exit", resolve));
  }
}

/** Runs `send` over all batches with `lanes` calls outstanding at a time. */
async function inFlight<T>(
  batches: readonly T[],
  lanes: number,
  send: (batch: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const running = Array.from({ length: lanes }, async () => {
    while (next < batches.length) await send(batches[next++]!);
  });
  await Promise.all(running);
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
