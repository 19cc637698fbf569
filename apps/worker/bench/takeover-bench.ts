import { mkdir } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { type DataPlaneClient, DataPlaneError } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import { type ByteRange, FsObjectStore } from "@lastword/object-store";
import { KEY_INDEX_SUFFIX } from "../src/durability/bucket-layout";
import type { RunningWorker, WorkerConfig } from "../src/worker";
import { seedTieredPartition, waitFor } from "./bench-topics";
import { startBenchWorker, withBenchWorld } from "./bench-world";

// A compacted partition whose every closed segment lives in object storage moves to a worker with
// an empty disk (issue 35 point 2): the time until it serves again, and what the new owner read
// from the bucket to get there — starting from the key index kept beside the newest segment, and
// (the same partition, the index objects deleted) rebuilding the index by reading every segment
// back. One worker at a time in this process, on the filesystem store.

const SECRET = "bench-takeover-secret";
/** Distinct keys (the figure: 1 M). */
const KEYS = Number(process.env.BENCH_TAKEOVER_KEYS ?? 1_000_000);
/** Writes per key: the history the partition keeps (no pass runs) grows with it, the keys do not. */
const VERSIONS = Number(process.env.BENCH_TAKEOVER_VERSIONS ?? 2);
const VALUE_BYTES = Number(process.env.BENCH_TAKEOVER_VALUE_BYTES ?? 100);
/** 8 MiB segments; a smaller run keeps about 16 of them in the bucket. */
const SEGMENT_BYTES = Math.min(
  8 << 20,
  Math.max(64 << 10, Math.floor((KEYS * VERSIONS * (VALUE_BYTES + 40)) / 16)),
);
const BATCH = 1000;

const TIMINGS: WorkerConfig["objectTimings"] = {
  commitWindowMs: 10,
  tiering: { consolidateAfterMs: 0, intervalMs: 100, fullScanMs: 1_000 },
  superseded: { graceMs: 0, intervalMs: 100 },
};

/** The filesystem store, counting what is read of segment objects and of index objects. */
class MeteredStore extends FsObjectStore {
  segmentReads = 0;
  segmentBytes = 0;
  indexReads = 0;
  indexBytes = 0;

  override async get(key: string, range?: ByteRange): Promise<Buffer> {
    const bytes = await super.get(key, range);
    this.#count(key, bytes.length);
    return bytes;
  }

  override async getStream(key: string, range?: ByteRange): Promise<Readable> {
    const stream = await super.getStream(key, range);
    const info = key.startsWith("segments/") ? await this.head(key) : null;
    this.#count(key, range?.length ?? info?.size ?? 0);
    return stream;
  }

  #count(key: string, bytes: number): void {
    if (key.endsWith(KEY_INDEX_SUFFIX)) {
      this.indexReads++;
      this.indexBytes += bytes;
    } else if (key.startsWith("segments/") && /-[0-9a-f]{12}$/.test(key)) {
      this.segmentReads++;
      this.segmentBytes += bytes;
    }
  }
}

export async function takeoverBenchmark(options: { dataDir: string }): Promise<void> {
  await withBenchWorld({ name: "takeover", secret: SECRET, ownerWaitMs: 120_000 }, async (db, client) => {
    // No pass: the bucket keeps the whole history the new owner would otherwise read.
    const id = await seedTieredPartition(db.prisma, SEGMENT_BYTES, "takeover");
    await mkdir(options.dataDir, { recursive: true });
    const objects = join(options.dataDir, "objects");
    const writer = await worker(db, join(options.dataDir, "writer"), new FsObjectStore(objects));
    try {
      await waitFor("the partition claimed", 60_000, async () => writer.ownedPartitions().length === 1);
      await produceAll(client, id);
      await waitFor("every segment in the bucket with an index", 30 * 60_000, () => settled(db, client, id));
    } finally {
      await writer.stop();
    }
    const rows = await db.prisma.partitionObject.findMany({ where: { partitionId: id, kind: "segment" } });
    const historyBytes = rows.reduce((sum, row) => sum + row.byteSize, 0);
    const mib = (n: number) => (n / (1 << 20)).toFixed(0);
    console.log(
      `\ntakeover of a compacted partition: ${KEYS.toLocaleString("en")} keys × ${VERSIONS} writes × ${VALUE_BYTES} B values, ` +
        `${mib(historyBytes)} MiB in ${rows.length} segment objects (filesystem store), every one evicted; load ${loadAverage()}`,
    );
    console.log(
      "  new owner | worker start → partition served s | segment objects read (MiB) | index objects read (MiB) | then one lookup s",
    );
    await move(db, client, id, join(options.dataDir, "with-index"), objects, "persisted key index");
    for await (const object of new FsObjectStore(objects).list(`segments/${id}/`))
      if (object.key.endsWith(KEY_INDEX_SUFFIX)) await new FsObjectStore(objects).delete(object.key);
    await move(
      db,
      client,
      id,
      join(options.dataDir, "without-index"),
      objects,
      "rebuilt by a scan (index objects deleted)",
    );
  });
}

function worker(db: TestDatabase, dataDir: string, store: FsObjectStore): Promise<RunningWorker> {
  return startBenchWorker(db, { dataDir, secret: SECRET }, { objectStore: store, objectTimings: TIMINGS });
}

/** Starts a worker with an empty disk and times it to a served partition (the previous owner released it). */
async function move(
  db: TestDatabase,
  client: DataPlaneClient,
  partitionId: string,
  dataDir: string,
  objects: string,
  label: string,
): Promise<void> {
  const store = new MeteredStore(objects);
  const started = performance.now();
  const owner = await worker(db, dataDir, store);
  try {
    // Answered once the log is open (a request waits for the open, the client for an owner; a
    // rebuild longer than a request's wait answers "still opening", retriable).
    await retried(() => client.segments({ partitionId }));
    const serving = performance.now();
    const read = {
      segments: store.segmentReads,
      segmentBytes: store.segmentBytes,
      index: store.indexReads,
      indexBytes: store.indexBytes,
    };
    const key = Buffer.from(keyOf(Math.floor(KEYS / 2)));
    const lookup = await client.lookupKey({ partitionId, key });
    if (lookup.record === null) throw new Error("bench: the key is not found after the move");
    const lookedUp = performance.now();
    console.log(
      `  ${label} | ${((serving - started) / 1000).toFixed(2)} | ` +
        `${read.segments} (${(read.segmentBytes / (1 << 20)).toFixed(0)}) | ${read.index} (${(read.indexBytes / (1 << 20)).toFixed(1)}) | ` +
        `${((lookedUp - serving) / 1000).toFixed(2)}`,
    );
  } finally {
    await owner.stop();
  }
}

async function retried<T>(call: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof DataPlaneError && error.retriable)) throw error;
    }
  }
}

const keyOf = (k: number) => `key-${String(k).padStart(8, "0")}`;

/** KEYS × VERSIONS records in batches of BATCH, 8 outstanding; each pass over the keys is one version. */
async function produceAll(client: DataPlaneClient, partitionId: string): Promise<void> {
  const value = Buffer.alloc(VALUE_BYTES, 7);
  const total = KEYS * VERSIONS;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next * BATCH < total) {
        const first = next++ * BATCH;
        const records = Array.from({ length: Math.min(BATCH, total - first) }, (_, i) => ({
          key: Buffer.from(keyOf((first + i) % KEYS)),
          value,
        }));
        await client.produce({ partitionId, records });
      }
    }),
  );
}

/** Every closed segment evicted and named by a segment row, the newest of which kept an index. */
async function settled(db: TestDatabase, client: DataPlaneClient, partitionId: string): Promise<boolean> {
  const { segments } = await client.segments({ partitionId });
  const closed = segments.filter((s) => !s.active);
  if (closed.length === 0 || !closed.every((s) => s.remote)) return false;
  const rows = await db.prisma.partitionObject.findMany({
    where: { partitionId, kind: "segment" },
    orderBy: { createdAt: "desc" },
  });
  return (
    rows.length === closed.length && (rows[0]?.stats as { keyIndex?: boolean } | null)?.keyIndex === true
  );
}

function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
}
