import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionLogOpener } from "../src/log-opener";
import { type RunningWorker, startWorker } from "../src/worker";
import { createTestTopic, eventually } from "./test-topics";

// A private redis-server, so stopping and restarting it cannot disturb other suites using the shared one.
const SECRET = "redis-outage-secret";
let db: TestDatabase;
let dataDir: string;
let redis: ChildProcess | null = null;
let port: number;
let worker: RunningWorker;
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
  db = await createTestDatabase("lastword_test_redis_outage");
  dataDir = await mkdtemp(join(tmpdir(), "lastword-redis-outage-"));
  port = await freePort();
  await startRedis();
  worker = await startWorker({
    databaseUrl: db.url,
    dataDir,
    secret: SECRET,
    openLog: partitionLogOpener(),
    logLevel: "silent",
    claimIntervalMs: 100,
    scheduling: {
      redisUrl: `redis://127.0.0.1:${port}`,
      redisPrefix: `lastword-test-${randomBytes(4).toString("hex")}`,
      tickMs: 300,
    },
  });
  client = new DataPlaneClient({ prisma: db.prisma, secret: SECRET, ownerWaitMs: 5_000 });
});

afterAll(async () => {
  client?.close();
  await worker?.stop();
  await stopRedis();
  await db?.drop();
  await rm(dataDir, { recursive: true, force: true });
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
