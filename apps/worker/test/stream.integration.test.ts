import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataPlaneClient, decodeRecordBatch, type StreamMode } from "@lastword/dataplane";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionLogOpener } from "../src/log-opener";
import { type RunningWorker, startWorker } from "../src/worker";
import { createTestTopic } from "./test-topics";

// The worker's partition stream (key-handlers.ts streamPartition) as frames: which kind it sends
// (stored batches, or picked records for a sparse snapshot page) and what they decode to.

const SECRET = "stream-test-secret";
let db: TestDatabase;
let dataDir: string;
let worker: RunningWorker;
let client: DataPlaneClient;

beforeAll(async () => {
  db = await createTestDatabase("lastword_test_worker_stream");
  dataDir = await mkdtemp(join(tmpdir(), "lastword-stream-"));
  worker = await startWorker({
    databaseUrl: db.url,
    dataDir,
    secret: SECRET,
    openLog: partitionLogOpener(),
    logLevel: "silent",
  });
  client = new DataPlaneClient({ prisma: db.prisma, secret: SECRET, ownerWaitMs: 5_000 });
});

afterAll(async () => {
  client?.close();
  await worker?.stop();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const records = (keys: string[], value: (key: string) => Buffer | null) =>
  keys.map((k) => ({ key: Buffer.from(k), value: value(k) }));
const keys = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `k${from + i}`);

/** The stream's frame kinds (first byte), its records' offsets and keys, and its end offset. */
async function streamed(partitionId: string, mode: StreamMode, offset?: number) {
  const kinds: number[] = [];
  const seen: { offset: number; key: string | undefined; value: string | null }[] = [];
  let end: number | null = null;
  for await (const piece of client.streamPartitionPieces({ partitionId, mode, offset })) {
    if (piece.kind === "end") end = piece.endOffset;
    else {
      kinds.push(piece.parts[0]![0]!);
      for (const r of decodeRecordBatch(piece.parts)) {
        seen.push({ offset: r.offset, key: r.key?.toString(), value: r.value?.toString() ?? null });
      }
    }
  }
  return { kinds, seen, end };
}

describe("partition stream frames", () => {
  it("a replay sends the stored batches, from inside the first batch, up to the end it began at", async () => {
    const topic = await createTestTopic(db.prisma, {
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
    });
    const partitionId = topic.partitionIds[0]!;
    await client.produce({ partitionId, records: records(keys(0, 10), (k) => Buffer.from(`a-${k}`)) });
    await client.produce({ partitionId, records: records(keys(0, 5), (k) => Buffer.from(`b-${k}`)) });
    await client.produce({ partitionId, records: records(["k9"], () => null) });

    const replay = await streamed(partitionId, "replay", 3);
    expect(new Set(replay.kinds)).toEqual(new Set([7]));
    expect(replay.seen.map((r) => r.offset)).toEqual(Array.from({ length: 13 }, (_, i) => 3 + i));
    expect(replay.seen[0]).toEqual({ offset: 3, key: "k3", value: "a-k3" });
    expect(replay.seen.at(-1)).toEqual({ offset: 15, key: "k9", value: null });
    expect(replay.end).toBe(16);
  });

  it("a snapshot sends each key's latest: stored batches with a keep list, picked records for a sparse page", async () => {
    const dense = await createTestTopic(db.prisma, {
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
    });
    const denseId = dense.partitionIds[0]!;
    await client.produce({
      partitionId: denseId,
      records: records(keys(0, 10), (k) => Buffer.from(`a-${k}`)),
    });
    await client.produce({
      partitionId: denseId,
      records: records(keys(0, 5), (k) => Buffer.from(`b-${k}`)),
    });
    await client.produce({ partitionId: denseId, records: records(["k9"], () => null) });
    const snapshot = await streamed(denseId, "snapshot");
    // Read from the first live offset (5): 11 records in the page, 9 of them kept.
    expect(snapshot.kinds).toEqual([7]);
    expect(snapshot.seen).toEqual([
      ...keys(5, 9).map((k, i) => ({ offset: 5 + i, key: k, value: `a-${k}` })),
      ...keys(0, 5).map((k, i) => ({ offset: 10 + i, key: k, value: `b-${k}` })),
    ]);
    expect(snapshot.end).toBe(16);

    // k0 written once, k1..k99 three times: a page from offset 0 holds 298 records, 100 kept.
    const sparse = await createTestTopic(db.prisma, {
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
    });
    const sparseId = sparse.partitionIds[0]!;
    await client.produce({ partitionId: sparseId, records: records(keys(0, 100), () => Buffer.from("v0")) });
    for (const round of [1, 2]) {
      await client.produce({
        partitionId: sparseId,
        records: records(keys(1, 100), () => Buffer.from(`v${round}`)),
      });
    }
    const picked = await streamed(sparseId, "snapshot");
    expect(picked.kinds).toEqual([4]);
    expect(picked.seen.map((r) => r.offset)).toEqual([0, ...Array.from({ length: 99 }, (_, i) => 199 + i)]);
    expect(picked.seen.slice(1).every((r) => r.value === "v2")).toBe(true);
    expect(picked.end).toBe(298);
  });
});
