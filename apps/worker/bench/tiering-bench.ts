import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { DataPlaneClient } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import { FsObjectStore, type ObjectStore } from "@lastword/object-store";
import type { RunningWorker, WorkerConfig } from "../src/worker";
import { seedTieredPartition, waitFor } from "./bench-topics";
import { benchRestTenant, startBenchWorker, withBenchWorld } from "./bench-world";

// Object storage across tiers: (1) the cleaner over a partition whose every segment is remote, next
// to a raw copy of the same objects; (2) an erasure on a topic whose segments are remote, from the
// request to the proven purge, with the key filters' targeted rewrites and with a pass over the
// whole partition instead. One worker in this process on the filesystem store.

const SECRET = "bench-tiering-secret";
/** The cleaner part's partition (BENCH_TIERING_BYTES, default 1 GiB) of 1 KiB records over 100,000 keys. */
const CLEAN_BYTES = Number(process.env.BENCH_TIERING_BYTES ?? 1 << 30);
const RECORD_BYTES = 1024;
/** Ten writes per key at least, so a smaller run still has old values for the pass to drop. */
const CLEAN_KEYS = Math.max(1, Math.min(100_000, Math.floor(CLEAN_BYTES / RECORD_BYTES / 10)));
/** 64 MiB segments (16 of them at 1 GiB); a smaller run keeps 16 closed segments to clean. */
const CLEAN_SEGMENT_BYTES = Math.min(64 << 20, Math.max(1 << 20, Math.floor(CLEAN_BYTES / 16)));
/** The erasure part's keys (the seeds' figure is 340,000 × ~1.2 KiB: BENCH_KEYS=340000). */
const ERASURE_KEYS = Number(process.env.BENCH_KEYS ?? 60_000);
const ERASURE_PARTITIONS = 12;
const ERASURE_VALUE_BYTES = 1200;
const BATCH = 500;
const parts = (process.env.BENCH_TIERING_PARTS ?? "clean,erasure").split(",");

const TIMINGS: WorkerConfig["objectTimings"] = {
  commitWindowMs: 10,
  tiering: { consolidateAfterMs: 0, intervalMs: 100, fullScanMs: 1_000 },
  superseded: { graceMs: 0, intervalMs: 100 },
};

export async function tieringBenchmark(options: { dataDir: string }): Promise<void> {
  if (parts.includes("clean")) await remoteClean(join(options.dataDir, "clean"));
  if (parts.includes("erasure")) await remoteErasure(join(options.dataDir, "erasure"));
}

function worker(db: TestDatabase, dataDir: string, store: ObjectStore, extra: Partial<WorkerConfig> = {}) {
  return startBenchWorker(
    db,
    { dataDir, secret: SECRET },
    { objectStore: store, objectTimings: TIMINGS, ...extra },
  );
}

/** Produces `count` records in batches of BATCH, 8 outstanding, keys and values from `record`. */
async function produceAll(
  client: DataPlaneClient,
  partitionOf: (n: number) => string,
  count: number,
  record: (n: number) => { key: Buffer; value: Buffer },
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next * BATCH < count) {
        const batch = next++;
        const first = batch * BATCH;
        const records = Array.from({ length: Math.min(BATCH, count - first) }, (_, i) => record(first + i));
        await client.produce({ partitionId: partitionOf(batch), records });
      }
    }),
  );
}

/** Every closed segment of every partition is in object storage only, and the manifest names it. */
async function allRemote(
  db: TestDatabase,
  client: DataPlaneClient,
  partitions: readonly string[],
): Promise<boolean> {
  for (const partitionId of partitions) {
    const { segments } = await client.segments({ partitionId });
    const closed = segments.filter((s) => !s.active);
    if (closed.length === 0 || !closed.every((s) => s.remote)) return false;
    const rows = await db.prisma.partitionObject.count({ where: { partitionId, kind: "segment" } });
    if (rows !== closed.length) return false;
  }
  return true;
}

async function remoteClean(dataDir: string): Promise<void> {
  await withBenchWorld({ name: "tiering_clean", secret: SECRET, ownerWaitMs: 60_000 }, async (db, client) => {
    const partitionId = await seedTieredPartition(db.prisma, CLEAN_SEGMENT_BYTES, "clean");
    await mkdir(dataDir, { recursive: true });
    const store = new FsObjectStore(join(dataDir, "objects"));
    const w = await worker(db, join(dataDir, "worker"), store);
    try {
      await waitFor("the partition claimed", 60_000, async () => w.ownedPartitions().length === 1);
      const value = Buffer.alloc(RECORD_BYTES - 24, 5);
      const count = Math.floor(CLEAN_BYTES / RECORD_BYTES);
      await produceAll(
        client,
        () => partitionId,
        count,
        (n) => ({ key: Buffer.from(`key-${String(n % CLEAN_KEYS).padStart(8, "0")}`), value }),
      );
      await waitFor("every segment remote", 30 * 60_000, () => allRemote(db, client, [partitionId]));
      const rows = await db.prisma.partitionObject.findMany({
        where: { partitionId, kind: "segment" },
      });
      const bytes = rows.reduce((sum, row) => sum + row.byteSize, 0);
      // The baseline: a raw copy of the same objects (read each, write it under another key).
      const copyStarted = performance.now();
      for (const row of rows) await store.put(`bench-copy/${row.baseOffset}`, await store.get(row.objectKey));
      const copySeconds = (performance.now() - copyStarted) / 1000;
      const started = performance.now();
      await client.requestClean({ partitionId });
      const passSeconds = (performance.now() - started) / 1000;
      const before = new Set(rows.map((row) => row.objectKey));
      await waitFor("the cleaned segments are the manifest", 30 * 60_000, async () => {
        const now = await db.prisma.partitionObject.findMany({
          where: { partitionId, kind: "segment" },
        });
        // A segment that held only latest values comes out of the pass unchanged and keeps its
        // object; the rest are replaced by cleaned objects, and every closed segment is remote again.
        return now.some((row) => !before.has(row.objectKey)) && (await allRemote(db, client, [partitionId]));
      });
      const doneSeconds = (performance.now() - started) / 1000;
      const mib = bytes / (1 << 20);
      console.log(
        `\nremote cleaner: ${mib.toFixed(0)} MiB in ${rows.length} segment objects (filesystem store), every one evicted`,
      );
      console.log("  row | seconds | MiB/s | × raw copy");
      console.log(
        `  raw copy of the objects (get + put) | ${copySeconds.toFixed(2)} | ${(mib / copySeconds).toFixed(0)} | 1`,
      );
      console.log(
        `  pass (fetch back, clean) | ${passSeconds.toFixed(2)} | ${(mib / passSeconds).toFixed(0)} | ${(copySeconds / passSeconds).toFixed(2)}`,
      );
      console.log(
        `  pass + upload + swap (the bucket holds the cleaned log) | ${doneSeconds.toFixed(2)} | ${(mib / doneSeconds).toFixed(0)} | ${(copySeconds / doneSeconds).toFixed(2)}`,
      );
    } finally {
      await w.stop();
    }
  });
}

/**
 * An erasure of one key on a topic whose segments are all remote, filed through the REST API; the
 * request's deadline makes the guard act at once, so the time is the rewrite, the upload, the
 * deletion of what it replaced and the proof. Measured with key filters (targeted rewrites) and,
 * on the same data taken over by a second worker, without (a pass over the whole partition).
 */
async function remoteErasure(dataDir: string): Promise<void> {
  await withBenchWorld(
    { name: "tiering_erasure", secret: SECRET, ownerWaitMs: 60_000 },
    async (db, client) => {
      const rest = await benchRestTenant({ db, client, tag: "tiering", scopes: ["admin"] });
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await rest.call(method, path, body === undefined ? undefined : JSON.stringify(body));
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      };
      const scheduling = {
        redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
        redisPrefix: rest.redisPrefix,
        tickMs: 250,
      };
      await mkdir(dataDir, { recursive: true });
      const store = new FsObjectStore(join(dataDir, "objects"));
      let w: RunningWorker | null = await worker(db, join(dataDir, "filters"), store, { scheduling });
      try {
        const created = await call("POST", "/topics", {
          name: "flags",
          partitions: ERASURE_PARTITIONS,
          configs: {
            "cleanup.policy": "compact",
            "segment.bytes": 4 << 20,
            "local.retention.bytes": 0,
            "lastword.durability": "local",
            // Only the erasures rewrite: no pass by ratio or lag.
            "min.cleanable.dirty.ratio": 1,
            "file.delete.delay.ms": 0,
          },
        });
        if (created.status !== 201)
          throw new Error(`bench topic: ${created.status} ${JSON.stringify(created.body)}`);
        const partitions = (
          await db.prisma.partition.findMany({
            where: { topic: { name: "flags" } },
            orderBy: { index: "asc" },
          })
        ).map((p) => p.id);
        await waitFor(
          "every partition claimed",
          60_000,
          async () => w!.ownedPartitions().length === ERASURE_PARTITIONS,
        );
        const value = Buffer.alloc(ERASURE_VALUE_BYTES, 9);
        await produceAll(
          client,
          (batch) => partitions[batch % ERASURE_PARTITIONS]!,
          ERASURE_KEYS,
          (n) => ({ key: Buffer.from(`flag-${n}`), value }),
        );
        await waitFor("every segment remote", 30 * 60_000, () => allRemote(db, client, partitions));
        const objects = await db.prisma.partitionObject.count({ where: { kind: "segment" } });
        console.log(
          `\nremote erasure: ${ERASURE_KEYS} keys × ${ERASURE_VALUE_BYTES} B over ${ERASURE_PARTITIONS} partitions, ` +
            `${objects} segment objects, every one evicted; one key erased, deadline 60 s (the guard acts at ~29 s)`,
        );
        console.log(
          "  rewrite | request → purged s | of which until the guard asked a pass s | cleaner runs | objects scanned / filtered out",
        );
        await eraseOne(db, call, "flag-7", "key filters (targeted rewrite)");
        await w.stop();
        w = null;
        // The same data, taken over by a worker that rewrites whole partitions.
        w = await worker(db, join(dataDir, "whole"), store, { scheduling, erasureKeyFilters: false });
        await waitFor(
          "every partition claimed",
          120_000,
          async () => w!.ownedPartitions().length === ERASURE_PARTITIONS,
        );
        // Its key index read every segment back at open: wait until the cache is trimmed again.
        await waitFor("every segment remote again", 30 * 60_000, () => allRemote(db, client, partitions));
        await eraseOne(db, call, "flag-8", "none (a pass over the whole partition)");
      } finally {
        await w?.stop();
        await rest.close();
      }
    },
  );
}

async function eraseOne(
  db: TestDatabase,
  call: (
    method: string,
    path: string,
    body?: unknown,
  ) => Promise<{ status: number; body: Record<string, unknown> }>,
  subject: string,
  label: string,
): Promise<void> {
  const filed = await call("POST", "/erasure-requests", {
    keys: [{ type: "string", data: subject }],
    topics: ["flags"],
    deadlineAt: new Date(Date.now() + 60_000).toISOString(),
  });
  if (filed.status !== 201) throw new Error(`erasure request: ${filed.status} ${JSON.stringify(filed.body)}`);
  const requestId = filed.body.id as string;
  const received = await db.prisma.erasureRequest.findUniqueOrThrow({ where: { id: requestId } });
  // One tombstone per partition the request reaches (the key's own partition and every partition
  // that may hold it); the request is purged when the last of them is.
  let tombstones = await db.prisma.erasureTombstone.findMany({ where: { requestId } });
  await waitFor(`${subject} purged`, 10 * 60_000, async () => {
    tombstones = await db.prisma.erasureTombstone.findMany({ where: { requestId } });
    return tombstones.length > 0 && tombstones.every((t) => t.purgedAt !== null);
  });
  const purgedAt = Math.max(...tombstones.map((t) => t.purgedAt!.getTime()));
  const asked = tombstones.flatMap((t) => (t.passRequestedAt ? [t.passRequestedAt.getTime()] : []));
  // The runs that purged: on a tombstone's partition between the request and that tombstone's purge
  // (a later pass only ages the tombstone itself).
  const runs = (
    await Promise.all(
      tombstones.map((t) =>
        db.prisma.cleanerRun.findMany({
          where: { partitionId: t.partitionId, startedAt: { gte: received.receivedAt, lte: t.purgedAt! } },
        }),
      ),
    )
  ).flat();
  const scanned = tombstones.flatMap(
    (t) => (t.purgeEvidence as { objects?: { scanned: { check: string }[] } }).objects?.scanned ?? [],
  );
  const seconds = (ms: number) => ((ms - received.receivedAt.getTime()) / 1000).toFixed(1);
  console.log(
    `  ${label} | ${seconds(purgedAt)} | ${asked.length > 0 ? seconds(Math.min(...asked)) : "none"} | ` +
      `${runs.map((r) => `${r.trigger}: ${Number(r.bytesRead) >> 10} KiB read in ${r.durationMs} ms`).join(", ") || "none"} | ` +
      `${scanned.filter((o) => o.check === "scanned").length} / ${scanned.filter((o) => o.check === "filtered").length}`,
  );
}
