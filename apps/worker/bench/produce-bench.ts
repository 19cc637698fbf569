import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DataPlaneClient } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import { encodeRecordFrames } from "@lastword/frames";
import { PartitionLog } from "@lastword/logstore";
import { seedTenants } from "./bench-topics";
import { benchRestTenant } from "./bench-world";

const BATCHES = 40;
const ROUNDS = 5;
/** Batches outstanding per row: one at a time, a few, and past Kafka's default of 5 per connection. */
const LANES = [1, 4, 8];
const RECORDS_PER_BATCH = 500;
const VALUE_BYTES = 1024;
const SECRET = "bench-secret";
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

function batch(n: number) {
  const value = Buffer.alloc(VALUE_BYTES, n % 251);
  return Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ key: Buffer.from(`key-${n}-${i}`), value }));
}

/** The same batch as the REST body a program sends: string keys, base64 values. */
function restBody(records: ReturnType<typeof batch>): string {
  return JSON.stringify({
    records: records.map((r) => ({
      key: { type: "string", data: r.key.toString() },
      value: { type: "base64", data: r.value.toString("base64") },
      partition: 0,
    })),
  });
}

/**
 * The same batch as the binary REST body (`application/vnd.lastword.frames`): a partition frame
 * naming partition 0, then one batch frame of the records (offset ignored, timestamp -1 = none).
 */
function framesBody(records: ReturnType<typeof batch>): Buffer {
  const partition = Buffer.from([5, 0, 0, 0, 0]);
  const frames = encodeRecordFrames(records.map((r) => ({ ...r, offset: 0, timestamp: -1, headers: [] })));
  return Buffer.concat([partition, frames]);
}

/** The REST tenant of `benchRestTenant` with a one-partition topic, producing to the worker process. */
async function restProducer(options: { db: TestDatabase }, client: DataPlaneClient) {
  const { call, close } = await benchRestTenant({ db: options.db, client, tag: "rest" });
  const created = await call("POST", "/topics", JSON.stringify({ name: "bench", partitions: 1 }));
  if (created.status !== 201) throw new Error(`bench topic: ${created.status} ${await created.text()}`);
  return {
    /** A JSON body (string) or a binary one (Buffer). */
    async produce(body: string | Buffer): Promise<void> {
      const response = await call("POST", "/topics/bench/records", body);
      if (response.status !== 200)
        throw new Error(`REST produce: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    },
    close,
  };
}

async function timeIt(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) / 1000;
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/**
 * Produce of 500 × 1 KiB batches: web-side client → worker process over HTTP, and the web's REST
 * route (JSON body, then the binary frames body; API key) → worker process, each vs append in this
 * process, with 1, 4 and 8 batches in flight (Kafka producers pipeline 5 per connection by
 * default). They alternate in rounds of BATCHES batches (after a warm-up round each), so all see the
 * same machine; the ratio is computed per round and its median reported, and once more against the
 * median of every append round of the run (in case a path slows the append rounds next to it).
 */
export async function produceBenchmark(options: { db: TestDatabase; dataDir: string }): Promise<void> {
  const batches = Array.from({ length: BATCHES }, (_, n) => batch(n));
  const mib = (BATCHES * RECORDS_PER_BATCH * VALUE_BYTES) / (1 << 20);

  const inProcessDir = join(options.dataDir, "in-process");
  await mkdir(inProcessDir, { recursive: true });
  const log = await PartitionLog.open({ dir: inProcessDir, config: { "segment.bytes": 256 << 20 } });
  const worker = await spawnWorker(options);
  const client = new DataPlaneClient({ prisma: options.db.prisma, secret: SECRET, ownerWaitMs: 10_000 });
  const web = await restProducer(options, client);
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
    const bodies = batches.map(restBody);
    const binaryBodies = batches.map(framesBody);
    const rest = (body: string | Buffer) => web.produce(body);
    const warm = LANES.at(-1)!;
    await inFlight(batches, warm, local);
    await inFlight(batches, warm, remote);
    await inFlight(bodies, warm, rest);
    await inFlight(binaryBodies, warm, rest);
    console.log(
      `\nproduce, ${ROUNDS} alternating rounds of ${BATCHES} batches of 500 × 1 KiB to one partition, fsync per batch`,
    );
    const paths = [
      {
        id: "client",
        name: "DataPlaneClient → worker",
        run: (lanes: number) => inFlight(batches, lanes, remote),
      },
      {
        id: "json",
        name: "web REST route (JSON) → worker",
        run: (lanes: number) => inFlight(bodies, lanes, rest),
      },
      {
        id: "binary",
        name: "web REST route (binary) → worker",
        run: (lanes: number) => inFlight(binaryBodies, lanes, rest),
      },
    ];
    // BENCH_PRODUCE_PATHS=binary (comma-separated ids) runs only those rows, e.g. under --cpu-prof.
    const only = process.env.BENCH_PRODUCE_PATHS?.split(",");
    const rows: { name: string; lanes: number; localS: number[]; remoteS: number[] }[] = [];
    for (const path of paths.filter((p) => !only || only.includes(p.id))) {
      for (const lanes of LANES) {
        const localS: number[] = [];
        const remoteS: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          localS.push(await timeIt(() => inFlight(batches, lanes, local)));
          remoteS.push(await timeIt(() => path.run(lanes)));
        }
        rows.push({ name: path.name, lanes, localS, remoteS });
      }
    }
    console.log(
      "  path | in flight | in-process append MiB/s | through the path MiB/s | ratio median (min–max), target ≥ 0.3 | vs run's in-process median",
    );
    for (const { name, lanes, localS, remoteS } of rows) {
      const ratios = localS.map((l, i) => l / remoteS[i]!);
      // The append rounds next to a path can be slowed by what that path left behind (garbage,
      // Postgres writing): the last column divides by every append round of the run at this lane count.
      const runLocal = median(rows.filter((r) => r.lanes === lanes).flatMap((r) => r.localS));
      console.log(
        `  ${name} | ${lanes} | ${(mib / median(localS)).toFixed(1)} | ${(mib / median(remoteS)).toFixed(1)} | ` +
          `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ` +
          `${(runLocal / median(remoteS)).toFixed(2)}`,
      );
    }
  } finally {
    await web.close();
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
