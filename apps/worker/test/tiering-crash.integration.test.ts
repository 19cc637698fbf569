import { rm } from "node:fs/promises";
import { join } from "node:path";
import { FsObjectStore } from "@lastword/object-store";
import { afterEach, describe, expect, it } from "vitest";
import { useMachines } from "./machines";
import { createTestPartition, eventually } from "./test-topics";

// Worker processes SIGKILLed at each step of moving a partition into objects of its own (a
// segment upload, a consolidation, a cleaner pass's upload, the deletion of what they replaced).
// After each crash the manifest must be the old set or the new one, never a mix, and a worker
// with an empty disk must serve every acknowledged record, then finish the step itself.
const LEASE_TTL_MS = 1_500;
const machines = useMachines({
  name: "tiering-crash",
  leaseTtlMs: LEASE_TTL_MS,
  env: { WORKER_SCHEDULING: "off", WORKER_OBJECT_GRACE_MS: "0" },
});
const { harness } = machines;

// A test that fails midway must not leave its worker claiming the next test's partitions.
const spawned: Awaited<ReturnType<typeof machines.spawn>>[] = [];
afterEach(() => {
  for (const worker of spawned.splice(0)) {
    if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL");
  }
});

async function spawn(id: string, env: Record<string, string> = {}) {
  const worker = await machines.spawn(id, env);
  spawned.push(worker);
  return worker;
}

const CONFIGS = { "cleanup.policy": "compact", "segment.bytes": "2048", "min.cleanable.dirty.ratio": "0.01" };
const value = (n: number) => `${n}-${"v".repeat(180)}`;

interface Crash {
  partitionId: string;
  acked: Map<number, string>;
}

/** Produces to a worker that dies at `fault` (reached by what the produces set off, or by `after`). */
async function crashAt(
  id: string,
  fault: string,
  options: {
    count: number;
    keys: number;
    env?: Record<string, string>;
    after?: (partitionId: string) => Promise<unknown>;
  },
): Promise<Crash> {
  const { partitionId } = await createTestPartition(harness.db.prisma, CONFIGS);
  const worker = await spawn(id, { LASTWORD_FAULT_POINT: fault, ...options.env });
  const exited = new Promise((resolve) => worker.child.once("exit", resolve));
  await machines.awaitOwner(id, partitionId, 5_000);
  const acked = new Map<number, string>();
  for (
    let n = 0;
    n < options.count && worker.child.exitCode === null && worker.child.signalCode === null;
    n++
  ) {
    const records = [{ key: Buffer.from(`key-${n % options.keys}`), value: Buffer.from(value(n)) }];
    const answer = await harness.client.produce({ partitionId, records }).catch(() => null);
    if (answer) acked.set(answer.offsets[0]!, value(n));
  }
  await options.after?.(partitionId).catch(() => undefined);
  await exited;
  await rm(join(machines.root, id), { recursive: true, force: true });
  return { partitionId, acked };
}

const rows = (partitionId: string) => machines.manifestRows(partitionId);

/** Rows tile [0, durable end) with no gap or overlap, every object holding what its row says. */
async function expectWholeManifest(partitionId: string): Promise<void> {
  const partition = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
  let next = 0n;
  const store = new FsObjectStore(join(machines.root, "objects"));
  for (const row of await rows(partitionId)) {
    expect(row.baseOffset).toBe(next);
    await expect(
      store.get(row.objectKey, { offset: Number(row.position), length: row.byteSize }),
    ).resolves.toHaveLength(row.byteSize);
    next = row.lastOffset + 1n;
  }
  await store.close();
  expect(next).toBe(partition.durableEndOffset);
}

/** A fresh worker takes the partition over; every acknowledged record is served (or a later one of its key). */
async function takeOver(id: string, crash: Crash, env: Record<string, string> = {}) {
  const worker = await spawn(id, env);
  const served = await eventually(`${id} serves the partition`, 10 * LEASE_TTL_MS, async () => {
    const row = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: crash.partitionId } });
    if (row.ownerWorkerId !== id) return undefined;
    return machines.fetchAll(crash.partitionId).catch(() => undefined);
  });
  return { worker, served };
}

const storeKeys = (prefix: string) => machines.objectKeys(prefix);

describe("crashes while a partition moves into objects of its own", () => {
  it("after a segment object's upload, before its rows swap: the commit rows stay, the object is an orphan", async () => {
    const crash = await crashAt("seg-die", "before-segment-swap", { count: 40, keys: 40 });
    expect((await rows(crash.partitionId)).every((row) => row.kind === "commit")).toBe(true);
    await expectWholeManifest(crash.partitionId);
    const orphans = await storeKeys(`segments/${crash.partitionId}/`);
    expect(orphans.length).toBeGreaterThan(0);
    const { worker, served } = await takeOver("seg-after", crash);
    for (const [offset, text] of crash.acked) expect(served.get(offset)).toBe(text);
    await eventually("the new owner uploads the segments", 15_000, async () =>
      (await rows(crash.partitionId)).some((row) => row.kind === "segment") ? true : undefined,
    );
    await expectWholeManifest(crash.partitionId);
    await machines.stop(worker);
    expect(await machines.sweep(0)).toBeGreaterThanOrEqual(orphans.length);
    for (const key of orphans) expect(await storeKeys(key)).toEqual([]);
  });

  it("after a consolidated object's upload, before its rows swap: the rows stay in the commit objects", async () => {
    const crash = await crashAt("tail-die", "before-tail-swap", {
      count: 5,
      keys: 5,
      env: { WORKER_CONSOLIDATE_AFTER_MS: "0" },
    });
    expect((await rows(crash.partitionId)).every((row) => row.objectKey.startsWith("commit/"))).toBe(true);
    await expectWholeManifest(crash.partitionId);
    const { worker, served } = await takeOver("tail-after", crash, { WORKER_CONSOLIDATE_AFTER_MS: "0" });
    expect(served).toEqual(crash.acked);
    await eventually("the new owner consolidates", 15_000, async () =>
      (await rows(crash.partitionId)).every((row) => row.objectKey.startsWith("tails/")) ? true : undefined,
    );
    await expectWholeManifest(crash.partitionId);
    await machines.stop(worker);
  });

  it("after a cleaner pass on disk, before its upload: the dirty but whole segments stay the manifest", async () => {
    const crash = await crashAt("clean-die", "after-clean-before-upload", {
      count: 60,
      keys: 4,
      after: async (partitionId) => {
        await eventually("the segments are uploaded", 15_000, async () =>
          (await rows(partitionId)).some((row) => row.kind === "segment") ? true : undefined,
        );
        await harness.client.requestClean({ partitionId });
      },
    });
    const before = await rows(crash.partitionId);
    await expectWholeManifest(crash.partitionId);
    const { worker, served } = await takeOver("clean-after", crash);
    // Nothing the pass removed is gone from the bucket: the old set, whole.
    for (const [offset, text] of crash.acked) expect(served.get(offset)).toBe(text);
    expect((await rows(crash.partitionId)).map((r) => r.objectKey)).toEqual(before.map((r) => r.objectKey));
    await harness.client.requestClean({ partitionId: crash.partitionId });
    const latest = new Map(
      [...crash.acked].map(([offset, text]) => [Number(text.split("-")[0]) % 4, offset]),
    );
    await eventually("the cleaned segments replace the dirty ones", 15_000, async () => {
      const after = await rows(crash.partitionId);
      return after.some(
        (row) => !before.some((old) => old.objectKey === row.objectKey && row.kind === "segment"),
      )
        ? true
        : undefined;
    });
    await expectWholeManifest(crash.partitionId);
    const cleaned = await machines.fetchAll(crash.partitionId);
    for (const offset of latest.values()) expect(cleaned.get(offset)).toBe(crash.acked.get(offset));
    expect(cleaned.size).toBeLessThan(served.size);
    await machines.stop(worker);
  });

  it("after the rows swap, before the replaced objects are deleted: the new set serves, the next worker deletes them", async () => {
    const crash = await crashAt("delete-die", "before-superseded-delete", { count: 40, keys: 40 });
    await expectWholeManifest(crash.partitionId);
    expect((await rows(crash.partitionId)).some((row) => row.kind === "segment")).toBe(true);
    const pending = await harness.db.prisma.supersededObject.findMany({
      where: { partitionId: crash.partitionId, deletedAt: null },
    });
    expect(pending.length).toBeGreaterThan(0);
    const { worker, served } = await takeOver("delete-after", crash);
    for (const [offset, text] of crash.acked) expect(served.get(offset)).toBe(text);
    await eventually("the replaced objects are deleted", 15_000, async () =>
      (await machines.pendingSuperseded(crash.partitionId)) === 0 ? true : undefined,
    );
    for (const object of pending) {
      if ((await rows(crash.partitionId)).some((row) => row.objectKey === object.objectKey)) continue;
      expect(await storeKeys(object.objectKey)).toEqual([]);
    }
    await machines.stop(worker);
  });
});
