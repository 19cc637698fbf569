import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import type { DataPlaneClient } from "@lastword/dataplane";
import type { TestDatabase } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestTopic, eventually } from "./test-topics";
import { openWorkerHarness, testScheduling, type WorkerHarness } from "./worker-harness";

// A private redis-server, so stopping and restarting it cannot disturb other suites using the shared one.
const SECRET = "redis-outage-secret";
let harness: WorkerHarness;
let db: TestDatabase;
let redis: ChildProcess | null = null;
let port: number;
let client: DataPlaneClient;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: chosen } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return chosen;
}

/** Starts an empty, non-persistent redis-server on `port` (a restart loses every key, schedulers included). */
async function startRedis(): Promise<void> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  redis = child;
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
}

async function stopRedis(): Promise<void> {
  const child = redis;
  redis = null;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

beforeAll(async () => {
  harness = await openWorkerHarness({ name: "redis-outage", secret: SECRET });
  ({ db, client } = harness);
  port = await freePort();
  await startRedis();
  await harness.startWorker({
    claimIntervalMs: 100,
    scheduling: testScheduling({ redisUrl: `redis://127.0.0.1:${port}`, tickMs: 300 }),
  });
});

afterAll(async () => {
  // The worker stops first, so its queues close against a Redis that still answers.
  await harness?.close();
  await stopRedis();
});

describe("Redis outage", () => {
  it("keeps produce and fetch working while Redis is down, and cleans what became due once it is back", async () => {
    const topic = await createTestTopic(db.prisma, {
      partitions: 1,
      configs: { "cleanup.policy": "compact", "segment.bytes": "1024" },
    });
    const partitionId = topic.partitionIds[0]!;
    await client.produce({
      partitionId,
      records: [{ key: Buffer.from("warm-up"), value: Buffer.from("v") }],
    });

    await stopRedis();
    for (let round = 0; round < 12; round++) {
      const records = Array.from({ length: 5 }, (_, k) => ({
        key: Buffer.from(`key-${k}`),
        value: Buffer.from(`round-${round}-${"x".repeat(40)}`),
      }));
      await client.produce({ partitionId, records });
    }
    const whileDown = await client.fetch({ partitionId, offset: 0, limit: 1_000 });
    expect(whileDown.records).toHaveLength(61);
    expect(await db.prisma.cleanerRun.count({ where: { partitionId } })).toBe(0);

    await startRedis();
    const run = await eventually("a pass after Redis returned", 15_000, async () =>
      (await db.prisma.cleanerRun.findMany({ where: { partitionId } })).find((r) => r.status === "completed"),
    );
    expect(run.recordsRemoved).toBeGreaterThan(0);
    const passes = await db.prisma.cleanerRun.count({ where: { partitionId, status: "completed" } });
    expect(passes).toBe(1);
  });
});
