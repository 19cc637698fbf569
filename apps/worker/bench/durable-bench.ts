import { join } from "node:path";
import { DataPlaneClient } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import {
  FsObjectStore,
  type ObjectStore,
  openObjectStore,
  parseObjectStoreLocation,
} from "@lastword/object-store";
import { startFauxqs } from "fauxqs";
import { partitionLogOpener } from "../src/hosting/log-opener";
import { startWorker } from "../src/worker";
import { percentile, seedTenants, waitFor } from "./bench-topics";

const PARTITIONS = 4;
const PRODUCES_PER_LANE = 150;
/** Produces in flight: one at a time, and eight spread over the four partitions. */
const LANES = [1, 8];
const RECORDS_PER_PRODUCE = 10;
const VALUE_BYTES = 1024;
const COMMIT_WINDOW_MS = 10;
const SECRET = "bench-durable-secret";

interface Setup {
  name: string;
  store: () => Promise<ObjectStore | undefined>;
  durability: "object" | "local";
}

/**
 * Produce latency and throughput through `DataPlaneClient` → an in-process worker: local-only
 * (no object store), then durable (`lastword.durability=object`: answered after the commit window's
 * PUT and manifest commit) and relaxed (`local`) against the filesystem store and against fauxqs,
 * an S3-compatible server in this process. 10 × 1 KiB records a produce.
 */
export async function durableBenchmark(options: { db: TestDatabase; dataDir: string }): Promise<void> {
  const s3 = await startFauxqs({ port: 0, logger: false });
  s3.createBucket("lastword-bench");
  const credentials = { accessKeyId: "bench", secretAccessKey: "bench" };
  const s3Store = () =>
    openObjectStore(
      parseObjectStoreLocation(`s3://lastword-bench/durable?endpoint=${s3.address}&forcePathStyle=true`),
      credentials,
    );
  const fsStore = async () => new FsObjectStore(join(options.dataDir, "objects"));
  const setups: Setup[] = [
    { name: "local only", store: async () => undefined, durability: "object" },
    { name: "fs, durable", store: fsStore, durability: "object" },
    { name: "fs, relaxed", store: fsStore, durability: "local" },
    { name: "s3 (fauxqs), durable", store: s3Store, durability: "object" },
    { name: "s3 (fauxqs), relaxed", store: s3Store, durability: "local" },
  ];
  console.log(
    `\ndurable produce: ${RECORDS_PER_PRODUCE} × ${VALUE_BYTES} B records a produce, ${PARTITIONS} partitions, window ${COMMIT_WINDOW_MS} ms`,
  );
  console.log("setup | in flight | p50 ms | p99 ms | records/s | objects");
  try {
    for (const [index, setup] of setups.entries()) await runSetup(options, setup, index);
  } finally {
    await s3.stop();
  }
}

async function runSetup(
  options: { db: TestDatabase; dataDir: string },
  setup: Setup,
  index: number,
): Promise<void> {
  const { prisma } = options.db;
  const objectStore = await setup.store();
  const worker = await startWorker({
    databaseUrl: options.db.url,
    dataDir: join(options.dataDir, `data-${index}`),
    secret: SECRET,
    openLog: partitionLogOpener(),
    logLevel: "silent",
    ...(objectStore && { objectStore, commitWindowMs: COMMIT_WINDOW_MS }),
  });
  const partitionIds = await seedTenants(prisma, {
    tenants: 1,
    partitionsPerTenant: PARTITIONS,
    configs: { "lastword.durability": setup.durability },
    tag: `durable${index}`,
  });
  const client = new DataPlaneClient({ prisma, secret: SECRET });
  try {
    await waitFor("the bench partitions hosted", 30_000, async () =>
      partitionIds.every((id) => worker.ownedPartitions().includes(id)),
    );
    const value = Buffer.alloc(VALUE_BYTES, 7);
    const records = Array.from({ length: RECORDS_PER_PRODUCE }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value,
    }));
    for (const lanes of LANES) {
      const objectsBefore = await prisma.partitionObject.count({
        where: { partitionId: { in: partitionIds } },
      });
      const latencies: number[] = [];
      const started = performance.now();
      await Promise.all(
        Array.from({ length: lanes }, async (_, lane) => {
          const partitionId = partitionIds[lane % PARTITIONS]!;
          for (let n = 0; n < PRODUCES_PER_LANE; n++) {
            const t0 = performance.now();
            await client.produce({ partitionId, records });
            latencies.push(performance.now() - t0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const rows = await prisma.partitionObject.findMany({
        where: { partitionId: { in: partitionIds } },
        select: { objectKey: true },
        distinct: ["objectKey"],
      });
      const objects = objectStore ? `${rows.length - Math.min(rows.length, objectsBefore)}` : "-";
      console.log(
        [
          setup.name,
          lanes,
          percentile(latencies, 50).toFixed(2),
          percentile(latencies, 99).toFixed(2),
          Math.round((lanes * PRODUCES_PER_LANE * RECORDS_PER_PRODUCE) / seconds),
          objects,
        ].join(" | "),
      );
    }
  } finally {
    client.close();
    await worker.stop();
    await prisma.topic.deleteMany({ where: { id: `t_bench_durable${index}_0` } });
  }
}
