import { join } from "node:path";
import type { Readable } from "node:stream";
import { type ByteRange, FsObjectStore } from "@lastword/object-store";
import { describe, expect, it } from "vitest";
import { KEY_INDEX_SUFFIX } from "../src/durability/bucket-layout";
import { EAGER_TIERING, useInProcessMachines } from "./machines";
import { createTestPartition, eventually } from "./test-topics";

// Issue 35 point 2: a partition whose segments all live in object storage moves to a worker with
// an empty disk, which starts its key index from the `.index` object kept beside the newest
// segment (and the tail after it) instead of fetching every evicted segment back — and falls back
// to that scan when the object is corrupt, missing or older than the segments it describes.
// Longer than the other tiering files: worker a must keep its lease through the produces and a pass
// on a loaded machine, and only the move itself is under test.
const LEASE_TTL_MS = 4_000;
const machines = useInProcessMachines({
  name: "key-index-takeover",
  leaseTtlMs: LEASE_TTL_MS,
  objectTimings: EAGER_TIERING,
});
const { harness } = machines;

/** The filesystem store, remembering every object key read (whole or as a stream). */
class CountingStore extends FsObjectStore {
  readonly reads: string[] = [];

  override get(key: string, range?: ByteRange): Promise<Buffer> {
    this.reads.push(key);
    return super.get(key, range);
  }

  override getStream(key: string, range?: ByteRange): Promise<Readable> {
    this.reads.push(key);
    return super.getStream(key, range);
  }
}

const KEYS = 40;
const keyOf = (k: number) => Buffer.from(`key-${k}`);
const CONFIGS = {
  "cleanup.policy": "compact,delete",
  "retention.ms": "-1",
  "segment.bytes": "2048",
  "local.retention.bytes": "0",
  // No pass unless asked: the stale case asks for one.
  "min.cleanable.dirty.ratio": "1",
  "delete.retention.ms": "0",
};

/** 160 records over KEYS keys, four per produce, then tombstones for keys 3 and 7. */
async function produce(partitionId: string): Promise<void> {
  for (let n = 0; n < 160; n += 4) {
    const records = [0, 1, 2, 3].map((i) => ({
      key: keyOf((n + i) % KEYS),
      value: Buffer.from(`${n + i}-${"v".repeat(150)}`),
    }));
    await harness.client.produce({ partitionId, records });
  }
  await harness.client.produce({
    partitionId,
    records: [3, 7].map((k) => ({ key: keyOf(k), value: null })),
  });
}

/** Segment objects (not their sidecars) of a partition. */
const isSegmentObject = (partitionId: string) => (key: string) =>
  key.startsWith(`segments/${partitionId}/`) && /-[0-9a-f]{12}$/.test(key);

/** Every closed segment is evicted, the manifest names each in a segment row and the newest row kept an index. */
async function settled(partitionId: string): Promise<boolean> {
  const { segments } = await harness.client.segments({ partitionId });
  const closed = segments.filter((s) => !s.active);
  if (closed.length < 3 || !closed.every((s) => s.remote)) return false;
  const rows = (await machines.manifestRows(partitionId)).filter((r) => r.kind === "segment");
  if (rows.length !== closed.length) return false;
  return (await machines.objectKeys(`${newestRow(rows).objectKey}${KEY_INDEX_SUFFIX}`)).length === 1;
}

type Row = Awaited<ReturnType<typeof machines.manifestRows>>[number];
/** The row whose `.index` the new owner reads (durable-partitions.ts: the newest committed). */
function newestRow(rows: readonly Row[]): Row {
  return rows
    .filter((r) => (r.stats as { keyIndex?: boolean } | null)?.keyIndex)
    .reduce((a, b) =>
      b.createdAt > a.createdAt || (+b.createdAt === +a.createdAt && b.baseOffset > a.baseOffset) ? b : a,
    );
}

async function answers(partitionId: string) {
  const lookups = [];
  for (let k = 0; k <= KEYS; k++)
    lookups.push(await harness.client.lookupKey({ partitionId, key: keyOf(k) }));
  const { earliest } = await harness.client.listOffsets({ partitionId });
  return { lookups, earliest, records: await readAll(partitionId, earliest) };
}

/**
 * Every record from `from`, in pages of a few segments: each page's evicted segments are fetched
 * back before it is answered, and a page of the whole partition could outlast the client's wait
 * for an answer on a loaded machine.
 */
async function readAll(partitionId: string, from: number): Promise<Map<number, string>> {
  const stored = new Map<number, string>();
  for (let offset = from; ; ) {
    const page = await harness.client.fetch({ partitionId, offset, limit: 20, maxBytes: 16 << 10 });
    for (const r of page.records) stored.set(r.offset, r.value?.toString() ?? "");
    if (page.records.length === 0 || page.nextOffset >= page.logEndOffset) return stored;
    offset = page.nextOffset;
  }
}

describe("a compacted partition in object storage moving to a new worker", () => {
  it("starts from the persisted key index without fetching evicted segments, and rebuilds by a scan when that index is corrupt, missing or stale", async () => {
    const a = await machines.start("a");
    const [good, corrupt, missing, stale] = await Promise.all(
      [0, 1, 2, 3].map(() => createTestPartition(harness.db.prisma, CONFIGS)),
    );
    const ids = [good!, corrupt!, missing!, stale!].map((t) => t.partitionId);
    await eventually("worker a serves the partitions", 8 * LEASE_TTL_MS, async () =>
      ids.every((id) => a.worker.ownedPartitions().includes(id)) ? true : undefined,
    );
    for (const id of ids) await produce(id);
    // The log start moves past the first segments of one partition (deleteRecords).
    await harness.client.deleteRecords({ partitionId: ids[0]!, beforeOffset: 30 });
    for (const id of ids)
      await eventually(`${id} settles`, 20_000, async () => ((await settled(id)) ? true : undefined));
    // One index object per partition: each upload deletes the one before.
    for (const id of ids) {
      const indexes = (await machines.objectKeys(`segments/${id}/`)).filter((k) =>
        k.endsWith(KEY_INDEX_SUFFIX),
      );
      expect(indexes).toHaveLength(1);
    }
    // The stale case: the index kept before a pass, put back over the one kept after it.
    const staleId = ids[3]!;
    const beforePass = newestRow((await machines.manifestRows(staleId)).filter((r) => r.kind === "segment"));
    const store = new FsObjectStore(join(machines.root, "objects"));
    const oldIndex = await store.get(`${beforePass.objectKey}${KEY_INDEX_SUFFIX}`);
    await harness.client.requestClean({ partitionId: staleId });
    await eventually("the cleaned segments are uploaded with a new index", 20_000, async () => {
      const rows = (await machines.manifestRows(staleId)).filter((r) => r.kind === "segment");
      return newestRow(rows).objectKey !== beforePass.objectKey && (await settled(staleId))
        ? true
        : undefined;
    });
    const before = new Map<string, Awaited<ReturnType<typeof answers>>>();
    for (const id of ids) before.set(id, await answers(id));
    expect(before.get(ids[0]!)!.earliest).toBe(30);
    expect(before.get(ids[0]!)!.lookups[3]!.tombstoneOffset).toBeGreaterThan(0);
    await a.worker.kill();

    const indexKey = async (id: string) =>
      `${newestRow((await machines.manifestRows(id)).filter((r) => r.kind === "segment")).objectKey}${KEY_INDEX_SUFFIX}`;
    const damaged = await store.get(await indexKey(ids[1]!));
    damaged[damaged.length >> 1]! ^= 0xff;
    await store.put(await indexKey(ids[1]!), damaged);
    await store.delete(await indexKey(ids[2]!));
    await store.put(await indexKey(staleId), oldIndex);
    await store.close();

    const counting = new CountingStore(join(machines.root, "objects"));
    const b = await machines.start("b", { objectStore: counting });
    await eventually("worker b serves the partitions", 8 * LEASE_TTL_MS, async () =>
      ids.every((id) => b.worker.ownedPartitions().includes(id)) ? true : undefined,
    );
    // Every log is open once a segment list is answered (the request waits for the open).
    for (const id of ids) await harness.client.segments({ partitionId: id });
    const atOpen = [...counting.reads];
    const segmentReads = (id: string, reads: readonly string[]) => reads.filter(isSegmentObject(id)).length;
    // The good partition: its index object and not one segment object.
    expect(segmentReads(ids[0]!, atOpen)).toBe(0);
    expect(
      atOpen.filter((key) => key.startsWith(`segments/${ids[0]}/`) && key.endsWith(KEY_INDEX_SUFFIX)),
    ).toHaveLength(1);
    // Corrupt, missing, stale: the index was rebuilt by reading the segments back.
    for (const id of ids.slice(1)) expect(segmentReads(id, atOpen)).toBeGreaterThan(2);

    // A tombstoned or absent key is answered from the index alone.
    const quiet = counting.reads.length;
    const tombstoned = await harness.client.lookupKey({ partitionId: ids[0]!, key: keyOf(3) });
    const absent = await harness.client.lookupKey({
      partitionId: ids[0]!,
      key: Buffer.from("never-written"),
    });
    expect(tombstoned).toEqual(before.get(ids[0]!)!.lookups[3]);
    expect(absent.record).toBeNull();
    expect(counting.reads.slice(quiet).filter(isSegmentObject(ids[0]!))).toEqual([]);
    // Every answer is the one worker a gave.
    for (const id of ids) expect(await answers(id)).toEqual(before.get(id));
    await b.worker.stop();
  });
});
