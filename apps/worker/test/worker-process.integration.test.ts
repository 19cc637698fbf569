import { describe, expect, it } from "vitest";
import { createTestTopic, eventually } from "./test-topics";
import { useWorkerHarness } from "./worker-harness";

// The workers here are child processes running main.ts; the harness gives them the database and
// data dir, and the test its client, but starts no worker itself.
const LEASE_TTL_MS = 2_000;
const harness = useWorkerHarness({
  name: "worker-process",
  ownerWaitMs: 2 * LEASE_TTL_MS + 1_000,
});
const spawnWorker = (id: string) => harness.spawnWorker(id, { leaseTtlMs: LEASE_TTL_MS });

async function ownerCounts(topicId: string): Promise<Map<string | null, number>> {
  const rows = await harness.db.prisma.partition.findMany({ where: { topicId } });
  const counts = new Map<string | null, number>();
  for (const row of rows) counts.set(row.ownerWorkerId, (counts.get(row.ownerWorkerId) ?? 0) + 1);
  return counts;
}

describe("worker processes", () => {
  it("survive a SIGKILL under produce load with no acknowledged record lost, and stop cleanly on SIGTERM", async () => {
    const [w1, w2, w3] = await Promise.all(["w1", "w2", "w3"].map(spawnWorker));
    const topic = await createTestTopic(harness.db.prisma, { partitions: 6 });
    await eventually("two partitions each", 3_000, async () => {
      const counts = await ownerCounts(topic.topicId);
      return ["w1", "w2", "w3"].every((id) => counts.get(id) === 2) ? true : undefined;
    });

    const acked = new Map<string, Map<number, string>>(topic.partitionIds.map((id) => [id, new Map()]));
    let producing = true;
    const producers = topic.partitionIds.map(async (partitionId) => {
      for (let n = 0; producing; n++) {
        const records = Array.from({ length: 10 }, (_, i) => ({
          key: null,
          value: Buffer.from(`${n}.${i}`),
        }));
        try {
          const result = await harness.client.produce({ partitionId, records });
          result.offsets.forEach((offset, i) => {
            acked.get(partitionId)!.set(offset, `${n}.${i}`);
          });
        } catch (error) {
          expect(error).toMatchObject({ retriable: true });
        }
      }
    });
    await eventually("records acknowledged on every partition", 10_000, async () =>
      [...acked.values()].every((records) => records.size > 0) ? true : undefined,
    );
    w1!.child.kill("SIGKILL");
    // Lease expiry runs on the database's clock (real time): waited for, not timed.
    await eventually("w1's partitions taken over", 10 * LEASE_TTL_MS, async () => {
      const counts = await ownerCounts(topic.topicId);
      return counts.has("w1") || counts.has(null) ? undefined : true;
    });
    // Producing goes on through the new owners: more records acknowledged on every partition.
    const atTakeover = new Map([...acked].map(([id, records]) => [id, records.size]));
    await eventually("records acknowledged after the takeover", 10_000, async () =>
      [...acked].every(([id, records]) => records.size > atTakeover.get(id)!) ? true : undefined,
    );
    producing = false;
    await Promise.all(producers);

    for (const [partitionId, records] of acked) {
      expect(records.size).toBeGreaterThan(0);
      // Paged to the end: a fast partition can hold more records than one fetch's limit.
      const stored = new Map<number, string>();
      for (let offset = 0; ; ) {
        const page = await harness.client.fetch({ partitionId, offset, limit: 10_000, maxBytes: 32 << 20 });
        for (const r of page.records) stored.set(r.offset, r.value!.toString());
        if (page.records.length === 0 || page.nextOffset >= page.logEndOffset) break;
        offset = page.nextOffset;
      }
      for (const [offset, value] of records) expect(stored.get(offset)).toBe(value);
    }

    const exited = new Promise<number | null>((resolve) => w2!.child.once("exit", resolve));
    w2!.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    // Released before it exited, not left to expire: no partition still names w2.
    expect((await ownerCounts(topic.topicId)).has("w2")).toBe(false);
    await eventually("w3 owns everything", 10_000, async () =>
      (await ownerCounts(topic.topicId)).get("w3") === 6 ? true : undefined,
    );
    const w2Row = await harness.db.prisma.worker.findUniqueOrThrow({ where: { id: "w2" } });
    expect(w2Row.stoppedAt).not.toBeNull();
    w3!.child.kill("SIGTERM");
  });
});
