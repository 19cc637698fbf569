import { rm } from "node:fs/promises";
import { join } from "node:path";
import { FsObjectStore } from "@lastword/object-store";
import { afterEach, expect } from "vitest";
import { useMachines } from "./machines";
import { createTestPartition, eventually } from "./test-topics";

// The steps of the tiering crash tests (tiering-crash*.integration.test.ts): worker processes
// SIGKILLed at a fault point while a partition moves into objects of its own, then a worker with an
// empty disk taking it over. Each file gets its own database and bucket: a fault point fires in
// whichever partition reaches it first, so a file's earlier partitions must not be there.
const LEASE_TTL_MS = 1_500;

/** The machines of one test file and the steps its tests are written in. */
export function useTieringCrash(name: string) {
  const machines = useMachines({
    name,
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

  const CONFIGS = {
    "cleanup.policy": "compact",
    "segment.bytes": "2048",
    "min.cleanable.dirty.ratio": "0.01",
  };
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

  return { machines, harness, crashAt, rows, expectWholeManifest, takeOver, storeKeys };
}
