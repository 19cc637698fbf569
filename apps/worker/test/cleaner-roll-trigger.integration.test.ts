import { beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { createTestPartition, eventually } from "./test-topics";
import { testScheduling, useWorkerHarness } from "./worker-harness";

const SECRET = "roll-trigger-secret";
const harness = useWorkerHarness({ name: "roll-trigger", secret: SECRET });
let worker: RunningWorker;

/** Scheduler ticks this worker has finished (its /metrics histogram count). */
async function ticks(): Promise<number> {
  const body = await (await fetch(`${worker.address}/metrics`)).text();
  return Number(/^lastword_scheduler_tick_seconds_count(?:\{[^}]*\})? (\d+)$/m.exec(body)?.[1] ?? 0);
}

beforeAll(async () => {
  worker = await harness.startWorker({
    claimIntervalMs: 100,
    // A tick far longer than the test: any pass that runs was started by the roll, not by a tick.
    scheduling: testScheduling({ tickMs: 120_000 }),
  });
});

describe("cleaning between ticks", () => {
  it("starts a pass as soon as a produce rolls a segment that makes the partition cleanable", async () => {
    const { partitionId } = await createTestPartition(harness.db.prisma, {
      "cleanup.policy": "compact",
      "segment.bytes": "1024",
    });
    // The first (boot) tick done, so it cannot be what starts the pass; the next is 120 s away.
    const ticked = await eventually("the boot tick", 10_000, async () => {
      const done = await ticks();
      return done >= 1 ? done : undefined;
    });
    const records = Array.from({ length: 4 }, (_, i) => ({
      key: Buffer.from(`k${i}`),
      value: Buffer.alloc(120, i),
    }));
    await harness.client.produce({ partitionId, records });
    await harness.client.produce({ partitionId, records });
    const run = await eventually("a pass", 10_000, async () =>
      (await harness.db.prisma.cleanerRun.findMany({ where: { partitionId } })).find(
        (r) => r.status === "completed",
      ),
    );
    expect(run.trigger).toBe("dirty-ratio");
    // No tick ran meanwhile: the roll started it.
    expect(await ticks()).toBe(ticked);
  });
});
