import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DataPlaneClient } from "@lastword/dataplane";
import { eventually } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, createApiServer, partitionForKey } from "../src/index";
import { REST_PRODUCER_ID_MAX, REST_PRODUCER_ID_MIN, restProducer } from "../src/records/idempotent-producer";
import { type Harness, PUBLIC_URL, rest, startHarness, str } from "./api-harness";
import { workerCommand } from "./worker-process";

// A produce whose worker is SIGKILLed between the append and the answer. The
// worker processes run the worker's main; the first one has the test-only fault point
// LASTWORD_FAULT_POINT=after-append, so it dies right after its first append is durable. The
// partition then moves to a second worker, which rebuilds the producer state from the shared data
// directory; the retry with the same Idempotency-Key gets the original offsets and the log holds
// one copy — also once the Redis entry is gone, since the key is recorded in the log.
const LEASE_TTL_MS = 2_000;
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
let h: Harness;
let server: ApiServer;
let dataPlane: DataPlaneClient;
let dataDir: string;
let apiKey: string;
const children: ChildProcess[] = [];

function spawnWorker(id: string, extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, workerCommand(), {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: h.db.url,
      LASTWORD_DATA_DIR: dataDir,
      LASTWORD_INTERNAL_SECRET: h.secret,
      REDIS_PREFIX: h.redisPrefix,
      WORKER_ID: id,
      WORKER_LEASE_TTL_MS: String(LEASE_TTL_MS),
      LOG_LEVEL: "info",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if ((JSON.parse(line) as { msg?: string }).msg === "worker ready") resolve(child);
    });
    child.once("exit", (code) => reject(new Error(`worker ${id} exited with ${code} before it was ready`)));
  });
}

async function ownedBy(topicName: string, workerId: string): Promise<true | undefined> {
  const rows = await h.db.prisma.partition.findMany({ where: { topic: { name: topicName } } });
  return rows.length > 0 && rows.every((row) => row.ownerWorkerId === workerId) ? true : undefined;
}

beforeAll(async () => {
  h = await startHarness("crash_retry");
  dataDir = mkdtempSync(join(tmpdir(), "lastword-crash-retry-"));
  // The client's wait for a new owner is shorter than the lease TTL, so the first attempt's resend
  // finds none and the caller gets the 503 (with a longer wait it would be answered transparently).
  dataPlane = new DataPlaneClient({ prisma: h.db.prisma, secret: h.secret, ownerWaitMs: 1_000 });
  server = createApiServer({
    prisma: h.db.prisma,
    redis: h.redis,
    dataPlane,
    publicUrl: PUBLIC_URL,
    authSecret: "crash-retry-auth-secret-0123456789abcdef",
    redisPrefix: h.redisPrefix,
  });
  const tenant = await server.provisionTenant({
    name: "Crash",
    email: "crash@example.com",
    password: "crash-pass-1",
  });
  apiKey = (await server.createApiKey({ ...tenant, name: "rw" })).key;
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  dataPlane?.close();
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("a produce retried through a SIGKILL between append and answer", () => {
  it("answers 503 writeMayHaveHappened, then the retry with the same key gets the original offsets; one copy in the log", async () => {
    const faulty = await spawnWorker("crash-a", { LASTWORD_FAULT_POINT: "after-append" });
    const created = await rest(server, { apiKey }, "POST", "/topics", {
      name: "orders",
      partitions: 2,
      configs: { "cleanup.policy": "compact" },
    });
    expect(created.status).toBe(201);
    await eventually("crash-a owns both partitions", 10_000, () => ownedBy("orders", "crash-a"));

    // Records over both partitions: each partition's batch is its own idempotent unit.
    const keys = Array.from({ length: 40 }, (_, i) => `order-${i}`);
    const partitions = keys.map((k) => partitionForKey(Buffer.from(k), 2));
    expect(new Set(partitions).size).toBe(2);
    const body = { records: keys.map((k) => ({ key: str(k), value: str(`v-${k}`) })) };
    const headers = { "idempotency-key": "crash-retry-1" };
    const exited = new Promise((resolve) => faulty.once("exit", (_code, signal) => resolve(signal)));

    const first = await rest(server, { apiKey }, "POST", "/topics/orders/records", body, headers);
    expect(await exited).toBe("SIGKILL");
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ code: "PARTITION_UNAVAILABLE", writeMayHaveHappened: true });
    expect(first.body.detail).toContain("retry with the same Idempotency-Key to get its offsets");

    // The same key with another body is still refused (the Redis entry says "retry", same hash only).
    const other = { records: [{ key: str("order-0"), value: str("other") }] };
    const reused = await rest(server, { apiKey }, "POST", "/topics/orders/records", other, headers);
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe("IDEMPOTENCY_KEY_REUSED");

    await spawnWorker("crash-b");
    await eventually("crash-b took both partitions over", 20_000, () => ownedBy("orders", "crash-b"));
    const retried = await rest(server, { apiKey }, "POST", "/topics/orders/records", body, headers);
    expect(retried.status).toBe(200);
    // Offsets in the order the records went to each partition: 0, 1, … per partition.
    const next = [0, 0];
    const expected = partitions.map((partition) => ({ partition, offset: next[partition]!++ }));
    expect(retried.body.results).toEqual(expected);

    for (const partition of [0, 1]) {
      const read = await rest(
        server,
        { apiKey },
        "GET",
        `/topics/orders/partitions/${partition}/records?offset=0&limit=1000`,
      );
      expect(read.body.logEndOffset).toBe(next[partition]);
      const values = (read.body.records as { value: { data: string } }[]).map((r) => r.value.data);
      expect(values).toEqual(keys.filter((_, i) => partitions[i] === partition).map((k) => `v-${k}`));
    }

    // Correctness comes from the log, not Redis: with the entry gone, the retry is answered from
    // the producer state (duplicate, nothing written); a body of another size under the key is refused.
    for (const name of await h.redis.keys(`${h.redisPrefix}:idem:*`)) await h.redis.del(name);
    const afterExpiry = await rest(server, { apiKey }, "POST", "/topics/orders/records", body, headers);
    expect(afterExpiry.body.results).toEqual(expected);
    for (const name of await h.redis.keys(`${h.redisPrefix}:idem:*`)) await h.redis.del(name);
    const resized = await rest(server, { apiKey }, "POST", "/topics/orders/records", other, headers);
    expect(resized.status).toBe(409);
    expect(resized.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    const offsets = await rest(
      server,
      { apiKey },
      "GET",
      "/topics/orders/partitions/0/records?offset=0&limit=1000",
    );
    expect(offsets.body.logEndOffset).toBe(next[0]);
  });

  it("on the restarted worker too; and a 503 without a key says a retry may write twice", async () => {
    const exitOf = (child: ChildProcess) =>
      new Promise((resolve) => child.once("exit", (_c, signal) => resolve(signal)));
    // Only crash-c runs here: the first test's survivor stops, so nobody else can take the partition.
    for (const child of children.filter((c) => c.exitCode === null && c.signalCode === null)) {
      const stopped = exitOf(child);
      child.kill("SIGTERM");
      await stopped;
    }
    let worker = await spawnWorker("crash-c", { LASTWORD_FAULT_POINT: "after-append" });
    const created = await rest(server, { apiKey }, "POST", "/topics", { name: "events", partitions: 1 });
    expect(created.status).toBe(201);
    await eventually("crash-c owns events", 10_000, () => ownedBy("events", "crash-c"));
    const plain = { records: [{ key: str("a"), value: str("plain") }] };
    let exited = exitOf(worker);
    const unkeyed = await rest(server, { apiKey }, "POST", "/topics/events/records", plain);
    expect(await exited).toBe("SIGKILL");
    expect(unkeyed.status).toBe(503);
    expect(unkeyed.body).toMatchObject({ code: "PARTITION_UNAVAILABLE", writeMayHaveHappened: true });
    expect(unkeyed.body.detail).toContain("send an Idempotency-Key");

    // The same worker id restarts (its old leases are released at start) and crashes once more.
    worker = await spawnWorker("crash-c", { LASTWORD_FAULT_POINT: "after-append" });
    await eventually("crash-c owns events again", 10_000, () => ownedBy("events", "crash-c"));
    const body = { records: ["b", "c", "d"].map((k) => ({ key: str(k), value: str(`v-${k}`) })) };
    const headers = { "idempotency-key": "restart-1" };
    exited = exitOf(worker);
    const first = await rest(server, { apiKey }, "POST", "/topics/events/records", body, headers);
    expect(await exited).toBe("SIGKILL");
    expect(first.body).toMatchObject({ code: "PARTITION_UNAVAILABLE", writeMayHaveHappened: true });

    await spawnWorker("crash-c");
    await eventually("crash-c owns events a third time", 10_000, () => ownedBy("events", "crash-c"));
    const retried = await rest(server, { apiKey }, "POST", "/topics/events/records", body, headers);
    expect(retried.status).toBe(200);
    expect(retried.body.results).toEqual([1, 2, 3].map((offset) => ({ partition: 0, offset })));
    const read = await rest(server, { apiKey }, "GET", "/topics/events/partitions/0/records?offset=0");
    expect((read.body.records as { value: { data: string } }[]).map((r) => r.value.data)).toEqual([
      "plain",
      "v-b",
      "v-c",
      "v-d",
    ]);
  });

  it("maps (tenant, Idempotency-Key) into the reserved REST producer-id range, stably", () => {
    const a = restProducer("org_1", "key");
    expect(a).toEqual(restProducer("org_1", "key"));
    expect(a.producerId).not.toBe(restProducer("org_2", "key").producerId);
    for (const key of ["", "x", "crash-retry-1", "ü".repeat(255)]) {
      const { producerId, producerEpoch, baseSequence } = restProducer("org_1", key);
      expect(Number.isSafeInteger(producerId)).toBe(true);
      expect(producerId).toBeGreaterThanOrEqual(REST_PRODUCER_ID_MIN);
      expect(producerId).toBeLessThanOrEqual(REST_PRODUCER_ID_MAX);
      expect([producerEpoch, baseSequence]).toEqual([0, 0]);
    }
  });
});
