import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useMachines } from "./machines";
import { createTestPartition, eventually } from "./test-topics";

// Worker processes SIGKILLed at a step of the durable acknowledgement, each with a data dir of its
// own, all on one filesystem object store; the next owner starts from an empty disk.
const LEASE_TTL_MS = 1_500;
const machines = useMachines({
  name: "durability-crash",
  leaseTtlMs: LEASE_TTL_MS,
  env: { WORKER_SCHEDULING: "off" },
});
const { harness } = machines;
const spawnMachine = machines.spawn;

/** Produces one record through a worker that dies on the way; the produce must fail. */
async function produceIntoCrash(id: string, fault: string, partitionId: string): Promise<void> {
  const worker = await spawnMachine(id, { LASTWORD_FAULT_POINT: fault });
  await machines.awaitOwner(id, partitionId, 5_000);
  const exited = new Promise((resolve) => worker.child.once("exit", resolve));
  await expect(
    harness.client.produce({ partitionId, records: [{ key: Buffer.from("k"), value: Buffer.from(fault) }] }),
  ).rejects.toMatchObject({ retriable: true });
  await exited;
  await rm(join(machines.root, id), { recursive: true, force: true });
}

/** What a fresh worker serves once it took the partition over; it stops afterwards. */
async function servedBy(id: string, partitionId: string) {
  const worker = await spawnMachine(id);
  const page = await eventually(`${id} serves the partition`, 10 * LEASE_TTL_MS, async () => {
    const row = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
    if (row.ownerWorkerId !== id) return undefined;
    return harness.client.fetch({ partitionId, offset: 0, limit: 10 }).catch(() => undefined);
  });
  await machines.stop(worker);
  return page;
}

const objectsOf = (workerId: string) => machines.objectKeys(`commit/${workerId}/`);

describe("crashes during the durable acknowledgement", () => {
  it("after the upload, before the manifest commit: nothing acknowledged, nothing served, the object left an orphan", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, {});
    await produceIntoCrash("put-then-die", "before-manifest-commit", partitionId);
    expect(await objectsOf("put-then-die")).toHaveLength(1);
    expect(await harness.db.prisma.partitionObject.count({ where: { partitionId } })).toBe(0);
    const page = await servedBy("after-put", partitionId);
    expect(page.records).toEqual([]);
    expect(page.logEndOffset).toBe(0);
    // The sweeper leaves it alone inside the grace period, and deletes it past it.
    expect(await machines.sweep(60 * 60_000)).toBe(0);
    expect(await machines.sweep(0)).toBe(1);
    expect(await objectsOf("put-then-die")).toEqual([]);
  });

  it("after the manifest commit, before the answer: not acknowledged, yet durable and served once", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, {});
    await produceIntoCrash("commit-then-die", "after-append", partitionId);
    const rows = await harness.db.prisma.partitionObject.findMany({ where: { partitionId } });
    expect(rows.map((row) => [row.baseOffset, row.lastOffset])).toEqual([[0n, 0n]]);
    const page = await servedBy("after-commit", partitionId);
    expect(page.records.map((r) => [r.offset, r.value?.toString()])).toEqual([[0, "after-append"]]);
    expect(page.logEndOffset).toBe(1);
    // A committed object is no orphan, however old.
    expect(await machines.sweep(0)).toBe(0);
    expect(await objectsOf("commit-then-die")).toHaveLength(1);
  });
});
