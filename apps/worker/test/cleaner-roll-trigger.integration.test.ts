import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionLogOpener } from "../src/log-opener";
import { type RunningWorker, startWorker } from "../src/worker";
import { createTestTopic, eventually } from "./test-topics";

const SECRET = "roll-trigger-secret";
let db: TestDatabase;
let dataDir: string;
let worker: RunningWorker;
let client: DataPlaneClient;

beforeAll(async () => {
  db = await createTestDatabase("lastword_test_roll_trigger");
  dataDir = await mkdtemp(join(tmpdir(), "lastword-roll-trigger-"));
  worker = await startWorker({
    databaseUrl: db.url,
    dataDir,
    secret: SECRET,
    openLog: partitionLogOpener(),
    logLevel: "silent",
    claimIntervalMs: 100,
    // A tick far longer than the test: any pass that runs was started by the roll, not by a tick.
    scheduling: {
      redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
      redisPrefix: `lastword-test-${randomBytes(4).toString("hex")}`,
      tickMs: 120_000,
    },
  });
  client = new DataPlaneClient({ prisma: db.prisma, secret: SECRET, ownerWaitMs: 5_000 });
});

afterAll(async () => {
  client?.close();
  await worker?.stop();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

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
