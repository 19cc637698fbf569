import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataPlaneClient, DataPlaneError } from "@lastword/dataplane";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionLogOpener } from "../src/log-opener";
import { type RunningWorker, startWorker } from "../src/worker";
import { createTestTopic } from "./test-topics";

const SECRET = "dataplane-test-secret";
let db: TestDatabase;
let dataDir: string;
let worker: RunningWorker;
let client: DataPlaneClient;

beforeAll(async () => {
  db = await createTestDatabase("lastword_test_dataplane");
  dataDir = await mkdtemp(join(tmpdir(), "lastword-dataplane-"));
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

describe("data plane through DataPlaneClient", () => {
  it("round-trips keys, null and empty values, timestamps and headers with per-record offsets", async () => {
    const topic = await createTestTopic(db.prisma, {
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
    });
    const partitionId = topic.partitionIds[0]!;
    const produced = await client.produce({
      partitionId,
      records: [
        { key: Buffer.from("user-1"), value: Buffer.from("hello"), timestamp: 1_700_000_000_000 },
        { key: Buffer.from("user-2"), value: null, headers: [{ key: "h", value: Buffer.from([0, 255]) }] },
        { key: Buffer.from("user-3"), value: Buffer.alloc(0), headers: [{ key: "n", value: null }] },
      ],
    });
    expect(produced).toEqual({ baseOffset: 0, offsets: [0, 1, 2] });

    const fetched = await client.fetch({ partitionId, offset: 0 });
    expect(fetched.nextOffset).toBe(3);
    expect(fetched.logStartOffset).toBe(0);
    expect(fetched.logEndOffset).toBe(3);
    const [first, tombstone, empty] = fetched.records;
    expect(first).toMatchObject({ offset: 0, timestamp: 1_700_000_000_000, headers: [] });
    expect(first!.key).toEqual(Buffer.from("user-1"));
    expect(first!.value).toEqual(Buffer.from("hello"));
    expect(tombstone!.value).toBeNull();
    expect(tombstone!.headers).toEqual([{ key: "h", value: Buffer.from([0, 255]) }]);
    expect(empty!.value).toEqual(Buffer.alloc(0));
    expect(empty!.headers).toEqual([{ key: "n", value: null }]);
  });

  it("writes the partition's files under <dataDir>/<organizationId>/<topicId>/<index>", async () => {
    const topic = await createTestTopic(db.prisma, { partitions: 2 });
    await client.produce({
      partitionId: topic.partitionIds[1]!,
      records: [{ key: null, value: Buffer.from("x") }],
    });
    const { readdir } = await import("node:fs/promises");
    const files = await readdir(join(dataDir, topic.organizationId, topic.topicId, "1"));
    expect(files).toContain("00000000000000000000.log");
  });

  it("fetches from an offset bounded by limit, and lists offsets and segments", async () => {
    const topic = await createTestTopic(db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    const base = Date.now();
    for (let batch = 0; batch < 4; batch++) {
      const records = Array.from({ length: 5 }, (_, i) => ({
        key: null,
        value: Buffer.from(`v${batch * 5 + i}`),
        timestamp: base + batch * 1000,
      }));
      await client.produce({ partitionId, records });
    }
    const page = await client.fetch({ partitionId, offset: 7, limit: 4 });
    expect(page.records.map((r) => r.offset)).toEqual([7, 8, 9, 10]);
    expect(page.nextOffset).toBe(11);
    expect(page.records[0]!.value).toEqual(Buffer.from("v7"));

    expect(await client.listOffsets({ partitionId })).toEqual({ earliest: 0, latest: 20 });
    const byTime = await client.listOffsets({ partitionId, timestamp: base + 2000 });
    expect(byTime.timestampOffset).toBe(10);
    const future = await client.listOffsets({ partitionId, timestamp: base + 60_000 });
    expect(future.timestampOffset).toBeNull();

    const { segments, logEndOffset } = await client.segments({ partitionId });
    expect(logEndOffset).toBe(20);
    expect(segments).toHaveLength(1);
    expect(segments[0]).toMatchObject({ baseOffset: 0, records: 20, active: true });
  });

  it("passes the log store's error codes through (null key on a compacted topic, offset out of range)", async () => {
    const topic = await createTestTopic(db.prisma, {
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
    });
    const partitionId = topic.partitionIds[0]!;
    const refused = client.produce({ partitionId, records: [{ key: null, value: Buffer.from("v") }] });
    await expect(refused).rejects.toMatchObject({ code: "INVALID_RECORD", retriable: false });
    await expect(client.fetch({ partitionId, offset: 5 })).rejects.toMatchObject({
      code: "OFFSET_OUT_OF_RANGE",
    });
  });

  it("refuses calls without the shared secret and names a missing partition", async () => {
    const topic = await createTestTopic(db.prisma, { partitions: 1 });
    const intruder = new DataPlaneClient({ prisma: db.prisma, secret: "wrong", ownerWaitMs: 5_000 });
    try {
      await expect(intruder.fetch({ partitionId: topic.partitionIds[0]!, offset: 0 })).rejects.toMatchObject({
        code: "UNAUTHORIZED",
      });
    } finally {
      intruder.close();
    }
    const missing = client.fetch({ partitionId: "no-such-partition", offset: 0 });
    await expect(missing).rejects.toBeInstanceOf(DataPlaneError);
    await expect(missing).rejects.toMatchObject({ code: "PARTITION_NOT_FOUND" });
  });

  it("answers /healthz without the secret", async () => {
    const response = await fetch(`${worker.address}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, workerId: worker.id });
  });
});
