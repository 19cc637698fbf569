import { randomBytes } from "node:crypto";
import { type ApiServer, createApiServer } from "@lastword/api";
import { partitionForKey } from "@lastword/api/partitioner";
import { type ErasureStatus, storedErasureStatus, storedTombstoneStatus } from "@lastword/erasure";
import { CLOSED_REQUEST_TIMELINE } from "@lastword/erasure/testing";
import { ManualClock } from "@lastword/logstore";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erasureSafetyMarginMs } from "../src/erasure/erasure-guard";
import { eventually } from "./test-topics";
import { openWorkerHarness, testScheduling, type WorkerHarness } from "./worker-harness";

// An erasure request's life on one ManualClock shared by the control plane (which takes the
// request and writes its tombstones) and the worker (whose guard forces passes, verifies, and moves
// the request on each scheduler tick, with nobody reading it). Time moves only when the test moves
// it, so a deadline, an at-risk window or a delete horizon is reached by a step of the clock, and
// each state is waited for, not caught in passing.

const PUBLIC_URL = "http://localhost:3999";
const TICK_MS = 300;
const RETENTION_MS = 3_000;
const KEY = "user-7";

const clock = new ManualClock();
const redisPrefix = `lwtest-erasure-deadline-${randomBytes(4).toString("hex")}`;
let h: WorkerHarness;
let redis: Redis;
let server: ApiServer;
let admin: string;
let compliance: string;

/** A REST call to the in-process control plane as `apiKey`; the JSON answer. */
async function rest(apiKey: string, method: string, path: string, body?: unknown) {
  const response = await server.handleRest(
    new Request(`${PUBLIC_URL}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

async function createTopic(name: string, partitions: number, configs: Record<string, string | number>) {
  const created = await rest(admin, "POST", "/topics", { name, partitions, configs });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

async function produce(topic: string, key: string, value: string | null, partition?: number) {
  const res = await rest(admin, "POST", `/topics/${topic}/records`, {
    records: [
      {
        key: { type: "string", data: key },
        value: value === null ? null : { type: "string", data: value },
        ...(partition === undefined ? {} : { partition }),
      },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function values(topic: string, partition: number) {
  const res = await rest(admin, "GET", `/topics/${topic}/partitions/${partition}/records?offset=0&limit=100`);
  return (res.body.records as { value: { data: string } | null }[]).map((r) => r.value?.data ?? null);
}

async function requestErasure(key: string, topic: string, deadlineInMs: number): Promise<string> {
  const res = await rest(compliance, "POST", "/erasure-requests", {
    keys: [{ type: "string", data: key }],
    topics: [topic],
    deadlineAt: new Date(clock.now() + deadlineInMs).toISOString(),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return String(res.body.id);
}

/**
 * Reads the request's row straight from Postgres until `done` holds: no API call, no reader. On a
 * timeout the error carries the request's tombstones and the passes run, to say where it stopped.
 */
async function waitForRow(id: string, what: string, done: (status: ErasureStatus) => boolean) {
  try {
    return await eventually(`erasure request ${id}: ${what}`, 30_000, async () => {
      const row = await h.db.prisma.erasureRequest.findUniqueOrThrow({ where: { id } });
      const status = storedErasureStatus(row.status);
      return done(status) ? { ...row, status } : undefined;
    });
  } catch (error) {
    const tombstones = await h.db.prisma.erasureTombstone.findMany({
      where: { requestId: id },
      select: { partitionIndex: true, offset: true, status: true, passRequestedAt: true, purgedAt: true },
    });
    const passes = await h.db.prisma.cleanerRun.findMany({
      orderBy: { startedAt: "asc" },
      select: { partitionId: true, status: true, trigger: true, startedAt: true, tombstonesRemoved: true },
    });
    throw new Error(
      `${(error as Error).message} at clock ${new Date(clock.now()).toISOString()}; tombstones ` +
        `${JSON.stringify(tombstones, (_k, v) => (typeof v === "bigint" ? Number(v) : v))}; passes ${JSON.stringify(passes)}`,
    );
  }
}

async function partitionId(topic: string, index: number): Promise<string> {
  const row = await h.db.prisma.partition.findFirstOrThrow({ where: { topic: { name: topic }, index } });
  return row.id;
}

beforeAll(async () => {
  h = await openWorkerHarness({ name: "erasure-deadline", ownerWaitMs: 15_000 });
  redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  server = createApiServer({
    prisma: h.db.prisma,
    redis,
    dataPlane: h.client,
    publicUrl: PUBLIC_URL,
    authSecret: randomBytes(32).toString("hex"),
    redisPrefix,
    clock,
  });
  const tenant = await server.provisionTenant({
    name: "Erasure deadline",
    email: "dpo@erasure-deadline.example",
    password: "erasure-pass-1",
  });
  admin = (await server.createApiKey({ ...tenant, name: "admin", scopes: ["admin"] })).key;
  compliance = (
    await server.createApiKey({
      ...tenant,
      name: "dpo",
      scopes: ["topics:read", "groups:read", "erasure:read", "erasure:write"],
    })
  ).key;
  await h.startWorker({ clock, claimIntervalMs: 100, scheduling: testScheduling({ tickMs: TICK_MS }) });
}, 60_000);

afterAll(async () => {
  await server?.close(5_000);
  const keys = (await redis?.keys(`${redisPrefix}:*`)) ?? [];
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
  await h?.close();
});

describe("erasure deadlines on the shared clock", () => {
  it("purges a partition whose latest record of the key is already a tombstone, and the murmur2 one, then closes, with nobody reading", async () => {
    // Kafka's default segment.ms and max.compaction.lag.ms: only the erasure guard makes these
    // idle partitions clean.
    await createTopic("accounts", 3, { "cleanup.policy": "compact", "delete.retention.ms": RETENTION_MS });
    const stray = (partitionForKey(Buffer.from(KEY), 3) + 1) % 3;
    // The key was written to another partition by hand and deleted there: the latest record is a
    // tombstone, but the value beneath it stays until a pass.
    await produce("accounts", KEY, "Eve, 1 Secret Lane", stray);
    await produce("accounts", KEY, null, stray);
    expect(await values("accounts", stray)).toEqual(["Eve, 1 Secret Lane", null]);
    const strayId = await partitionId("accounts", stray);
    expect(await h.client.lookupKey({ partitionId: strayId, key: Buffer.from(KEY) })).toMatchObject({
      record: null,
      tombstoneOffset: 1,
    });

    const deadlineInMs = 15_000;
    const id = await requestErasure(KEY, "accounts", deadlineInMs);
    const rows = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    expect(rows.map((r) => r.partitionIndex).sort()).toEqual(
      [partitionForKey(Buffer.from(KEY), 3), stray].sort(),
    );

    // The pass under the old value becomes due when the deadline, less the guard's safety margin,
    // is near: the guard rolls the segment and forces it.
    clock.advance(deadlineInMs - erasureSafetyMarginMs(TICK_MS));
    await eventually("the guard forced a pass on the stray partition", 30_000, async () => {
      const row = await h.db.prisma.erasureTombstone.findFirstOrThrow({
        where: { requestId: id, partitionIndex: stray },
      });
      return row.passRequestedAt ?? undefined;
    });
    // A rescan follows a pass that ended after the last scan: time moves on by a millisecond.
    clock.advance(1);
    const purged = await waitForRow(id, "purged", (s) => s !== "tombstoned" && s !== "received");
    expect(purged.status).toBe("purged");
    const verified = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    for (const t of verified) {
      expect(t.purgedAt!.getTime()).toBeLessThan(purged.deadlineAt.getTime());
      expect((t.purgeEvidence as { result: string }).result).toBe("absent");
    }
    const strayRow = verified.find((t) => t.partitionIndex === stray)!;
    expect((strayRow.purgeEvidence as { bytesScanned: number }).bytesScanned).toBeGreaterThan(0);

    // Past the tombstones' delete horizon (the purging pass's start + delete.retention.ms) the
    // cleaner removes them by itself, the guard proves them gone and the request closes.
    clock.advance(RETENTION_MS + 1);
    const closed = await waitForRow(id, "closed", (s) => s === "closed" || s === "failed");
    expect(closed.status).toBe("closed");
    expect(closed.closedAt).not.toBeNull();
    const actions = await h.db.prisma.auditEvent.findMany({
      where: { targetType: "erasureRequest", targetId: id },
      orderBy: { seq: "asc" },
      select: { action: true, actorType: true },
    });
    expect(actions.map((e) => e.action)).toEqual(CLOSED_REQUEST_TIMELINE);
    expect(actions.slice(1).every((e) => e.actorType === "system")).toBe(true);

    // The value beneath the old tombstone is physically gone, and the key index forgot the key.
    expect(await values("accounts", stray)).toEqual([]);
    const forgotten = await h.client.lookupKey({ partitionId: strayId, key: Buffer.from(KEY) });
    expect(forgotten.record).toBeNull();
    expect(forgotten.tombstoneOffset).toBeUndefined();
  }, 90_000);

  it("marks a request at risk in the last tenth of its window, then failed with the reason, when min.compaction.lag.ms keeps the old value", async () => {
    await createTopic("held", 1, { "cleanup.policy": "compact", "min.compaction.lag.ms": 3_600_000 });
    await produce("held", "user-9", "kept by min lag");
    const deadlineInMs = 12_000;
    const id = await requestErasure("user-9", "held", deadlineInMs);

    // A second before the deadline: inside the last tenth (1.2 s) of the window, still unpurged.
    clock.advance(deadlineInMs - 1_000);
    const atRisk = await waitForRow(id, "at risk", (s) => s !== "tombstoned");
    expect(atRisk.status).toBe("at-risk");
    expect(atRisk.statusReason).toBe(
      "1 partition(s) not yet verified purged with less than 1 s to the deadline.",
    );

    clock.advance(1_001);
    const failed = await waitForRow(id, "failed", (s) => s !== "at-risk");
    expect(failed.status).toBe("failed");
    expect(failed.statusReason).toMatch(/deadline .* passed/);
    const tombstones = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    expect(tombstones.map((t) => storedTombstoneStatus(t.status))).toEqual(["tombstoned"]);
    const actions = await h.db.prisma.auditEvent.findMany({
      where: { targetType: "erasureRequest", targetId: id },
      orderBy: { seq: "asc" },
      select: { action: true },
    });
    expect(actions.map((e) => e.action).slice(-2)).toEqual(["erasure.at-risk", "erasure.failed"]);
    const list = await rest(compliance, "GET", "/erasure-requests?status=failed");
    expect((list.body.requests as { id: string }[]).map((r) => r.id)).toEqual([id]);
  }, 60_000);
});
