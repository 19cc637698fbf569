import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type DataPlaneClient, DataPlaneError } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import {
  FsObjectStore,
  type ObjectStore,
  openObjectStore,
  parseObjectStoreLocation,
} from "@lastword/object-store";
import { startFauxqs } from "fauxqs";
import type { RunningWorker } from "../src/worker";
import { percentile, seedTenants, waitFor } from "./bench-topics";
import { startBenchWorker, withBenchWorld } from "./bench-world";

const SECRET = "bench-objects-secret";
const WORLD = { name: "objects", secret: SECRET, ownerWaitMs: 20_000 };
const PARTITIONS = 12;
const CONCURRENCY = [1, 16, 64];
const RECORDS_PER_PRODUCE = 10;
const VALUE_BYTES = 1024;
/** Produces per measured row: enough for a p99 at one producer, 40 rounds of every producer above. */
const producesFor = (producers: number) => Math.max(300, producers * 40);
/** The cold start's keys (the seeds' figure is 340,000 × ~1.2 KiB: BENCH_KEYS=340000). */
const COLD_KEYS = Number(process.env.BENCH_KEYS ?? 24_000);
const COLD_VALUE_BYTES = 1200;
const COMMIT_WINDOW_MS = 10;
/** BENCH_OBJECTS_PARTS=cold runs only the cold start (default: produce,cold). */
const parts = (process.env.BENCH_OBJECTS_PARTS ?? "produce,cold").split(",");

interface StoreUnderTest {
  name: string;
  /** A fresh connection to the same store (each worker closes the one it was given). */
  open(): Promise<ObjectStore>;
}

/**
 * Produce latency and throughput on a worker in this process, through its data plane (HTTP), in
 * durable (`lastword.durability=object`) and relaxed (`local`) mode against the filesystem store and
 * an S3 server (fauxqs, in this process), next to a worker without an object store (the local-only
 * append, fsync per produce) — all in one run, with 1, 16 and 64 producers over 12 partitions;
 * then a cold start: a worker with an empty disk taking over a compacted topic from the manifest.
 */
export async function objectsBenchmark(options: { dataDir: string }): Promise<void> {
  const fauxqs = await startFauxqs({ port: 0, logger: false });
  fauxqs.createBucket("lastword-bench");
  const s3Location = parseObjectStoreLocation(
    `s3://lastword-bench/bench?endpoint=${fauxqs.address}&forcePathStyle=true`,
  );
  const stores: StoreUnderTest[] = [
    {
      name: "filesystem",
      open: async () => new FsObjectStore(join(options.dataDir, "objects")),
    },
    {
      name: "S3 (fauxqs)",
      open: () => openObjectStore(s3Location, { accessKeyId: "bench", secretAccessKey: "bench" }),
    },
  ];
  try {
    if (parts.includes("produce")) {
      console.log(
        `\nobject storage: produce of ${RECORDS_PER_PRODUCE} × ${VALUE_BYTES} B records to ${PARTITIONS} partitions ` +
          `through a worker's data plane (worker and producers in one process), commit window ${COMMIT_WINDOW_MS} ms`,
      );
      console.log(
        "  store | durability | producers | p50 ms | p99 ms | produces/s | MiB/s | commit objects/s",
      );
      await produceRows(options, null, "none (local disk only)", ["local-only"]);
      for (const store of stores) await produceRows(options, store, store.name, ["object", "local"]);
    }
    if (!parts.includes("cold")) return;
    console.log(
      `\ncold start: ${COLD_KEYS} keys × ${COLD_VALUE_BYTES} B over ${PARTITIONS} compacted partitions, ` +
        "taken over by a worker with an empty disk (the first one stopped gracefully: no lease wait)",
    );
    console.log(
      "  store | manifest rows | worker start → all partitions claimed s | → snapshot of every partition served s | keys served",
    );
    for (const store of stores) await coldStart(options, store);
  } finally {
    await fauxqs.stop();
  }
}

function benchWorker(db: TestDatabase, dataDir: string, store: ObjectStore | null): Promise<RunningWorker> {
  return startBenchWorker(
    db,
    { dataDir, secret: SECRET },
    store ? { objectStore: store, objectTimings: { commitWindowMs: COMMIT_WINDOW_MS } } : {},
  );
}

async function produceRows(
  options: { dataDir: string },
  store: StoreUnderTest | null,
  storeName: string,
  modes: readonly ("object" | "local" | "local-only")[],
): Promise<void> {
  await withBenchWorld(WORLD, async (db, client) => {
    const topics = new Map<string, string[]>();
    for (const mode of modes) {
      const configs: Record<string, string> = mode === "local-only" ? {} : { "lastword.durability": mode };
      topics.set(
        mode,
        await seedTenants(db.prisma, { tenants: 1, partitionsPerTenant: PARTITIONS, configs, tag: mode }),
      );
    }
    const dataDir = join(options.dataDir, `produce-${storeName.replace(/\W+/g, "-")}`);
    await mkdir(dataDir, { recursive: true });
    const objectStore = store ? await store.open() : null;
    const counter = store ? await store.open() : null;
    const worker = await benchWorker(db, dataDir, objectStore);
    try {
      await allClaimed(worker, modes.length * PARTITIONS);
      const value = Buffer.alloc(VALUE_BYTES, 7);
      for (const mode of modes) {
        const partitions = topics.get(mode)!;
        const produce = (n: number) =>
          client.produce({
            partitionId: partitions[n % PARTITIONS]!,
            records: Array.from({ length: RECORDS_PER_PRODUCE }, (_, i) => ({
              key: Buffer.from(`k${n % 5_000}-${i}`),
              value,
            })),
          });
        // Warm-up: every partition open for writes, connections made.
        await producers(PARTITIONS * 2, 16, produce);
        for (const concurrency of CONCURRENCY) {
          const total = producesFor(concurrency);
          const objectsBefore = counter ? await countCommitObjects(counter) : 0;
          const started = performance.now();
          const latencies = await producers(total, concurrency, produce);
          const seconds = (performance.now() - started) / 1000;
          const objects = counter ? (await countCommitObjects(counter)) - objectsBefore : 0;
          latencies.sort((a, b) => a - b);
          const mib = (total * RECORDS_PER_PRODUCE * VALUE_BYTES) / (1 << 20);
          console.log(
            `  ${storeName} | ${mode} | ${concurrency} | ${percentile(latencies, 50).toFixed(1)} | ` +
              `${percentile(latencies, 99).toFixed(1)} | ${(total / seconds).toFixed(0)} | ${(mib / seconds).toFixed(1)} | ` +
              `${counter ? (objects / seconds).toFixed(0) : "–"}`,
          );
        }
      }
    } finally {
      await worker.stop();
      await counter?.close();
    }
  });
}

function allClaimed(worker: RunningWorker, count: number): Promise<void> {
  return waitFor(
    `${count} partitions claimed`,
    60_000,
    async () => worker.ownedPartitions().length === count,
  );
}

/** `total` produces, `concurrency` of them outstanding at a time; each one's latency in ms. */
async function producers(
  total: number,
  concurrency: number,
  produce: (n: number) => Promise<unknown>,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const n = next++;
        const at = performance.now();
        await produce(n);
        latencies.push(performance.now() - at);
      }
    }),
  );
  return latencies;
}

async function countCommitObjects(store: ObjectStore): Promise<number> {
  let count = 0;
  for await (const _ of store.list("commit/")) count++;
  return count;
}

async function coldStart(options: { dataDir: string }, store: StoreUnderTest): Promise<void> {
  await withBenchWorld(WORLD, async (db, client) => {
    const partitions = await seedTenants(db.prisma, {
      tenants: 1,
      partitionsPerTenant: PARTITIONS,
      configs: { "cleanup.policy": "compact", "lastword.durability": "object" },
      tag: "cold",
    });
    const base = join(options.dataDir, `cold-${store.name.replace(/\W+/g, "-")}`);
    const first = await benchWorker(db, join(base, "first"), await store.open());
    try {
      await allClaimed(first, PARTITIONS);
      const value = Buffer.alloc(COLD_VALUE_BYTES, 3);
      const batch = 500;
      await producers(Math.ceil(COLD_KEYS / batch), 8, (n) =>
        client.produce({
          partitionId: partitions[n % PARTITIONS]!,
          records: Array.from({ length: Math.min(batch, COLD_KEYS - n * batch) }, (_, i) => ({
            key: Buffer.from(`key-${n * batch + i}`),
            value,
          })),
        }),
      );
    } finally {
      await first.stop();
    }
    const rows = await db.prisma.partitionObject.count();
    const started = performance.now();
    const second = await benchWorker(db, join(base, "second-empty-disk"), await store.open());
    try {
      await allClaimed(second, PARTITIONS);
      const opened = performance.now();
      const counts = await Promise.all(
        partitions.map((partitionId) => snapshotWhenOpen(client, partitionId)),
      );
      const served = counts.reduce((sum, n) => sum + n, 0);
      const done = performance.now();
      if (served !== COLD_KEYS) throw new Error(`cold start served ${served} keys, ${COLD_KEYS} written`);
      console.log(
        `  ${store.name} | ${rows} | ${((opened - started) / 1000).toFixed(2)} | ${((done - started) / 1000).toFixed(2)} | ${served}`,
      );
    } finally {
      await second.stop();
    }
  });
}

/**
 * The keys of a partition's snapshot, asked for until its owner has rebuilt it: a partition being
 * rebuilt from the manifest answers a retriable PARTITION_UNAVAILABLE before the first frame.
 */
async function snapshotWhenOpen(client: DataPlaneClient, partitionId: string): Promise<number> {
  for (;;) {
    let keys = 0;
    let started = false;
    try {
      for await (const frame of client.streamPartition({ partitionId, mode: "snapshot" })) {
        started = true;
        if (frame.kind === "records") keys += frame.records.length;
      }
      return keys;
    } catch (error) {
      if (started || !(error instanceof DataPlaneError) || !error.retriable) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
