import type { DataPlaneClient } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestTopic, eventually } from "./test-topics";
import { openWorkerHarness, testScheduling, type WorkerHarness } from "./worker-harness";

const SECRET = "roll-trigger-secret";
let harness: WorkerHarness;
let db: TestDatabase;
let client: DataPlaneClient;

beforeAll(async () => {
  harness = await openWorkerHarness({ name: "roll-trigger", secret: SECRET });
  ({ db, client } = harness);
  await harness.startWorker({
    claimIntervalMs: 100,
    // A tick far longer than the test: any pass that runs was started by the roll, not by a tick.
    scheduling: testScheduling({ tickMs: 120_000 }),
  });
});

afterAll(() => harness?.close());

describe("cleaning between ticks", () => {
  it("starts a pass as soon as a produce rolls a segment that makes the partition cleanable", async () => {
    const topic = await createTestTopic(db.prisma, {
      partitions: 1,
      configs: { "cleanup.policy": "compact", "segment.bytes": "1024" },
    });
    const partitionId = topic.partitionIds[0]!;
    // Let the first (boot) tick pass so it cannot be what starts the pass.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const records = Array.from({ length: 4 }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.alloc(120, i),
    }));
    await client.produce({ partitionId, records });
    await client.produce({ partitionId, records });
    const rolledAt = Date.now();
    const run = await eventually("a pass", 5_000, async () =>
      (await db.prisma.cleanerRun.findMany({ where: { partitionId } })).find((r) => r.status === "completed"),
    );
    expect(run.startedAt.getTime() - rolledAt).toBeLessThan(2_000);
    expect(run.trigger).toBe("dirty-ratio");
  });
});
