import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useMachines } from "./machines";
import { createTestTopic, eventually } from "./test-topics";

// Two worker processes as two machines: each its own data directory, both the same object store
// (the filesystem one) and Postgres. Losing one machine, disk and all, must lose no acknowledged record.
const LEASE_TTL_MS = 2_000;
const machines = useMachines({
  name: "machine-loss",
  leaseTtlMs: LEASE_TTL_MS,
  env: {
    WORKER_SCHEDULER_TICK_MS: "200",
    REDIS_PREFIX: `lastword-test-machine-loss-${Math.random().toString(36).slice(2, 8)}`,
  },
});
const { harness } = machines;
const spawnMachine = (id: string) => machines.spawn(id);

async function owners(topicId: string): Promise<Map<string, string | null>> {
  const rows = await harness.db.prisma.partition.findMany({ where: { topicId } });
  return new Map(rows.map((row) => [row.id, row.ownerWorkerId]));
}

interface Acked {
  key: string;
  value: string;
}

describe("machine loss", () => {
  it("serves every acknowledged record after a worker is SIGKILLed and its disk deleted, and cleans the partitions taken over", async () => {
    const [w1, w2] = await Promise.all(["m1", "m2"].map(spawnMachine));
    const topic = await createTestTopic(harness.db.prisma, {
      partitions: 4,
      configs: { "cleanup.policy": "compact", "segment.bytes": "4096", "min.cleanable.dirty.ratio": "0.01" },
    });
    const ownedByM1 = await eventually("two partitions each", 5_000, async () => {
      const counts = [...(await owners(topic.topicId)).entries()];
      const m1 = counts.filter(([, owner]) => owner === "m1").map(([id]) => id);
      const m2 = counts.filter(([, owner]) => owner === "m2");
      return m1.length === 2 && m2.length === 2 ? m1 : undefined;
    });

    const acked = new Map<string, Map<number, Acked>>(topic.partitionIds.map((id) => [id, new Map()]));
    let producing = true;
    const producers = topic.partitionIds.map(async (partitionId) => {
      for (let n = 0; producing; n++) {
        const records = Array.from({ length: 5 }, (_, i) => ({
          key: Buffer.from(`key-${(n * 5 + i) % 40}`),
          value: Buffer.from(`${partitionId}.${n}.${i}`),
        }));
        try {
          const result = await harness.client.produce({ partitionId, records });
          result.offsets.forEach((offset, i) => {
            acked
              .get(partitionId)!
              .set(offset, { key: `key-${(n * 5 + i) % 40}`, value: `${partitionId}.${n}.${i}` });
          });
        } catch (error) {
          expect(error).toMatchObject({ retriable: true });
        }
      }
    });
    await eventually("records acknowledged on every partition", 10_000, async () =>
      [...acked.values()].every((records) => records.size >= 200) ? true : undefined,
    );

    w1!.child.kill("SIGKILL");
    await new Promise((resolve) => w1!.child.once("exit", resolve));
    await rm(join(machines.root, "m1"), { recursive: true, force: true });
    await eventually("m2 took every partition", 10 * LEASE_TTL_MS, async () =>
      [...(await owners(topic.topicId)).values()].every((owner) => owner === "m2") ? true : undefined,
    );
    const atTakeover = new Map([...acked].map(([id, records]) => [id, records.size]));
    await eventually("records acknowledged after the takeover", 10_000, async () =>
      [...acked].every(([id, records]) => records.size > atTakeover.get(id)! + 50) ? true : undefined,
    );
    producing = false;
    await Promise.all(producers);

    // The cleaner then works on the partitions rebuilt from object storage.
    await eventually("m2 cleaned the partitions it took over", 30_000, async () => {
      const runs = await harness.db.prisma.cleanerRun.findMany({
        where: { partitionId: { in: ownedByM1 }, workerId: "m2", status: "completed" },
      });
      return ownedByM1.every((id) => runs.some((run) => run.partitionId === id)) ? true : undefined;
    });

    for (const [partitionId, records] of acked) {
      const served = new Map<number, Acked>();
      for (let offset = 0; ; ) {
        const page = await harness.client.fetch({ partitionId, offset, limit: 10_000, maxBytes: 32 << 20 });
        for (const r of page.records)
          served.set(r.offset, { key: r.key!.toString(), value: r.value!.toString() });
        if (page.records.length === 0 || page.nextOffset >= page.logEndOffset) break;
        offset = page.nextOffset;
      }
      // Compaction keeps each key's latest: every acknowledged record is served, or a later record
      // of its key is.
      const latestServed = new Map<string, number>();
      for (const [offset, { key }] of served)
        latestServed.set(key, Math.max(latestServed.get(key) ?? -1, offset));
      for (const [offset, record] of records) {
        const kept = served.get(offset);
        if (kept) expect(kept).toEqual(record);
        else expect(latestServed.get(record.key)).toBeGreaterThan(offset);
      }
    }
    w2!.child.kill("SIGTERM");
  });
});
