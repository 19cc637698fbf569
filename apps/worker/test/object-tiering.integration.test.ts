import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { partitionDir } from "../src/ownership/partition-paths";
import { EAGER_TIERING, useInProcessMachines } from "./machines";
import { createTestPartition, createTestTopic, eventually } from "./test-topics";

// Object storage as the partitions' whole home: closed segments become segment objects exactly as
// on disk, the active segment's commit rows move out of shared commit objects, uploaded segments
// leave the disk under local.retention.*, and every object the manifest stops naming is deleted
// after the grace period. In-process workers with data directories of their own, one filesystem store.
const LEASE_TTL_MS = 1_500;
const machines = useInProcessMachines({
  name: "object-tiering",
  leaseTtlMs: LEASE_TTL_MS,
  objectTimings: EAGER_TIERING,
});
const { harness } = machines;
const startMachine = machines.start;

async function owned(worker: { ownedPartitions(): string[] }, partitionIds: readonly string[]) {
  await eventually("the worker serves the partitions", 8 * LEASE_TTL_MS, async () =>
    partitionIds.every((id) => worker.ownedPartitions().includes(id)) ? true : undefined,
  );
}

const record = (key: string, value: string) => ({ key: Buffer.from(key), value: Buffer.from(value) });
const value = (n: number) => `${n}-${"v".repeat(180)}`;

/** `count` records over `keys` keys, one produce each; what each offset holds. */
async function produce(partitionId: string, count: number, keys = 5): Promise<Map<number, string>> {
  const acked = new Map<number, string>();
  for (let n = 0; n < count; n++) {
    const answer = await harness.client.produce({
      partitionId,
      records: [record(`key-${n % keys}`, value(n))],
    });
    acked.set(answer.offsets[0]!, value(n));
  }
  return acked;
}

/** Every record the partition still holds (retention may have moved its start past 0). */
async function fetchAll(partitionId: string): Promise<Map<number, string>> {
  const { earliest } = await harness.client.listOffsets({ partitionId });
  return machines.fetchAll(partitionId, earliest);
}

const rows = (partitionId: string) => machines.manifestRows(partitionId);
const storeKeys = (prefix: string) => machines.objectKeys(prefix);

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Whether the manifest is in its settled shape: one segment row per closed segment, the rest in the partition's own objects. */
async function settled(partitionId: string): Promise<boolean> {
  const { segments } = await harness.client.segments({ partitionId });
  const manifest = await rows(partitionId);
  const closed = segments.filter((s) => !s.active);
  const segmentRows = manifest.filter((row) => row.kind === "segment");
  if (segmentRows.length !== closed.length) return false;
  if (manifest.some((row) => row.objectKey.startsWith("commit/"))) return false;
  return (await storeKeys("commit/")).length === 0;
}

describe("segments in object storage", () => {
  it("uploads each closed segment exactly as on disk, consolidates the active segment's rows and deletes what they replaced", async () => {
    const { worker, dataDir } = await startMachine("upload");
    const topic = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
      "segment.bytes": "2048",
    });
    await owned(worker, [topic.partitionId]);
    const acked = await produce(topic.partitionId, 40);
    await eventually("the manifest settles", 15_000, async () =>
      (await settled(topic.partitionId)) ? true : undefined,
    );
    const { segments } = await harness.client.segments({ partitionId: topic.partitionId });
    expect(segments.filter((s) => !s.active).length).toBeGreaterThan(2);
    const manifest = await rows(topic.partitionId);
    const dir = partitionDir(dataDir, topic.organizationId, topic.topicId, 0);
    for (const [i, segment] of segments.entries()) {
      if (segment.active) continue;
      const row = manifest.find((r) => Number(r.baseOffset) === segment.baseOffset)!;
      // The row spans the offsets up to the next segment, its object is the file, byte for byte.
      expect([row.kind, Number(row.lastOffset)]).toEqual(["segment", segments[i + 1]!.baseOffset - 1]);
      const file = readFileSync(join(dir, `${String(segment.baseOffset).padStart(20, "0")}.log`));
      expect(row.sha256).toBe(sha256(file));
      expect(row.objectKey).toMatch(new RegExp(`^segments/${topic.partitionId}/`));
    }
    // The active segment's rows sit in an object of the partition's own, and the manifest tiles 0..end.
    const tail = manifest.filter((row) => row.kind === "commit");
    for (const row of tail) expect(row.objectKey).toMatch(new RegExp(`^tails/${topic.partitionId}/`));
    let next = 0n;
    for (const row of manifest) {
      expect(row.baseOffset).toBe(next);
      next = row.lastOffset + 1n;
    }
    expect(next).toBe(40n);
    // Every object the manifest stopped naming is gone from the store and recorded as deleted.
    const superseded = await harness.db.prisma.supersededObject.findMany({
      where: { partitionId: topic.partitionId },
    });
    expect(superseded.length).toBeGreaterThan(0);
    await eventually("superseded objects deleted", 10_000, async () =>
      (await machines.pendingSuperseded(topic.partitionId)) === 0 ? true : undefined,
    );
    expect(await fetchAll(topic.partitionId)).toEqual(acked);
    await worker.stop();
  });

  it("keeps no uploaded segment on disk under local.retention.bytes=0, and fetches them back for reads and key lookups", async () => {
    const { worker, dataDir } = await startMachine("evict");
    const topic = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
      "segment.bytes": "2048",
      "local.retention.bytes": "0",
    });
    await owned(worker, [topic.partitionId]);
    const acked = await produce(topic.partitionId, 40, 40);
    const dir = partitionDir(dataDir, topic.organizationId, topic.topicId, 0);
    const evicted = await eventually("every closed segment evicted", 15_000, async () => {
      const { segments } = await harness.client.segments({ partitionId: topic.partitionId });
      const closed = segments.filter((s) => !s.active);
      return closed.length > 2 && closed.every((s) => s.remote) ? closed : undefined;
    });
    for (const segment of evicted) {
      expect(existsSync(join(dir, `${String(segment.baseOffset).padStart(20, "0")}.log`))).toBe(false);
    }
    expect(await fetchAll(topic.partitionId)).toEqual(acked);
    const lookup = await harness.client.lookupKey({
      partitionId: topic.partitionId,
      key: Buffer.from("key-0"),
    });
    expect(lookup.record && Buffer.from(lookup.record.value, "base64").toString()).toBe(value(0));
    // Read back, then evicted again by the next syncs: the disk stays within the bound.
    await eventually("evicted again", 15_000, async () => {
      const { segments } = await harness.client.segments({ partitionId: topic.partitionId });
      return segments.filter((s) => !s.active).every((s) => s.remote) ? true : undefined;
    });
    await worker.stop();
  });

  it("compacts a topic whose segments were all uploaded and evicted to the same records as on local disk, and a new worker serves them", async () => {
    const a = await startMachine("model-a");
    const configs = {
      "cleanup.policy": "compact",
      "segment.bytes": "2048",
      "min.cleanable.dirty.ratio": "0.01",
    };
    const tiered = await createTestPartition(harness.db.prisma, { ...configs, "local.retention.bytes": "0" });
    const local = await createTestPartition(harness.db.prisma, configs);
    await owned(a.worker, [tiered.partitionId, local.partitionId]);
    for (const partitionId of [tiered.partitionId, local.partitionId]) {
      await produce(partitionId, 60, 6);
      await harness.client.produce({ partitionId, records: [{ key: Buffer.from("key-1"), value: null }] });
    }
    await eventually("every closed segment evicted", 15_000, async () => {
      const { segments } = await harness.client.segments({ partitionId: tiered.partitionId });
      return segments.filter((s) => !s.active).every((s) => s.remote) ? true : undefined;
    });
    for (const partitionId of [tiered.partitionId, local.partitionId])
      await harness.client.requestClean({ partitionId });
    const expected = await fetchAll(local.partitionId);
    expect(expected.size).toBeLessThan(61);
    expect(await fetchAll(tiered.partitionId)).toEqual(expected);
    // The cleaned segments replace the dirty ones in the manifest; the dirty objects are deleted.
    await eventually("the cleaned segments are the manifest", 15_000, async () =>
      (await settled(tiered.partitionId)) && (await machines.pendingSuperseded(tiered.partitionId)) === 0
        ? true
        : undefined,
    );
    const superseded = await harness.db.prisma.supersededObject.findMany({
      where: { partitionId: tiered.partitionId, reason: "cleaner" },
    });
    expect(superseded.length).toBeGreaterThan(0);
    for (const object of superseded) expect(await storeKeys(object.objectKey)).toEqual([]);
    // The machine is lost; a worker with an empty disk serves the compacted state from the bucket.
    await a.worker.kill();
    await rm(a.dataDir, { recursive: true, force: true });
    const b = await startMachine("model-b");
    await owned(b.worker, [tiered.partitionId]);
    expect(await fetchAll(tiered.partitionId)).toEqual(expected);
    await b.worker.stop();
  });

  it("trims the manifest below the log start and deletes the objects of segments retention removed", async () => {
    const { worker } = await startMachine("retention");
    const topic = await createTestTopic(harness.db.prisma, {
      partitions: 1,
      configs: { "cleanup.policy": "delete", "segment.bytes": "2048", "local.retention.bytes": "0" },
    });
    const partitionId = topic.partitionIds[0]!;
    await owned(worker, [partitionId]);
    const acked = await produce(partitionId, 40);
    await eventually("the manifest settles", 15_000, async () =>
      (await settled(partitionId)) ? true : undefined,
    );
    const before = await rows(partitionId);
    await harness.client.deleteRecords({ partitionId, beforeOffset: 30 });
    await eventually("rows below the log start are gone", 15_000, async () => {
      const manifest = await rows(partitionId);
      return manifest.length > 0 && manifest.every((row) => row.lastOffset >= 30n) ? manifest : undefined;
    });
    const partition = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
    expect(partition.durableStartOffset).toBe(30n);
    const gone = before.filter((row) => row.lastOffset < 30n);
    expect(gone.length).toBeGreaterThan(0);
    await eventually("their objects are deleted", 10_000, async () => {
      for (const row of gone) if ((await storeKeys(row.objectKey)).length > 0) return undefined;
      return true;
    });
    const served = await fetchAll(partitionId);
    expect(Math.min(...served.keys())).toBe(30);
    for (const [offset, text] of served) expect(text).toBe(acked.get(offset));
    await worker.stop();
  });
});
