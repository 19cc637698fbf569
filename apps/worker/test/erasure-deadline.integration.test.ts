import type { ApiServer } from "@lastword/api";
import { partitionForKey } from "@lastword/api/partitioner";
import { alterTopicConfigs } from "@lastword/api/topic-admin";
import {
  type ErasureStatus,
  proofDelays,
  storedErasureStatus,
  storedTombstoneStatus,
  totalDelayMs,
} from "@lastword/erasure";
import { CLOSED_REQUEST_TIMELINE } from "@lastword/erasure/testing";
import { ManualClock } from "@lastword/logstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openControlPlane, type TestControlPlane } from "./rest-call";
import { eventually } from "./test-topics";
import { openWorkerHarness, testScheduling, type WorkerHarness } from "./worker-harness";

// An erasure request's life on one ManualClock shared by the control plane (which takes the
// request and writes its tombstones) and the worker (whose guard forces passes, verifies, and moves
// the request on each scheduler tick, with nobody reading it). Time moves only when the test moves
// it, so a deadline, an at-risk window or a delete horizon is reached by a step of the clock, and
// each state is waited for, not caught in passing.

const TICK_MS = 300;
const RETENTION_MS = 3_000;
const KEY = "user-7";
/** Every wait of a proof on this worker (no object store): the guard overrides min lag with this much left. */
const PROOF_MS = totalDelayMs(proofDelays({ tickMs: TICK_MS, passMs: 1_000 }));

const clock = new ManualClock();
let h: WorkerHarness;
let control: TestControlPlane;
let server: ApiServer;
let admin: string;
let compliance: string;
let owner: { tenantId: string; userId: string };

/** A REST call to the in-process control plane as `apiKey`; the JSON answer. */
function rest(apiKey: string, method: string, path: string, body?: unknown) {
  return control.rest(apiKey, method, path, body);
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

/** A one-partition compacted topic whose min.compaction.lag.ms is `minLagMs`, `value` under each of `keys`. */
async function laggedTopic(name: string, minLagMs: number, keys: string[], value: string) {
  await createTopic(name, 1, { "cleanup.policy": "compact", "min.compaction.lag.ms": minLagMs });
  for (const key of keys) await produce(name, key, value);
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
  control = openControlPlane({ name: "erasure-deadline", prisma: h.db.prisma, dataPlane: h.client, clock });
  server = control.server;
  const tenant = await server.provisionTenant({
    name: "Erasure deadline",
    email: "dpo@erasure-deadline.example",
    password: "erasure-pass-1",
  });
  owner = { tenantId: tenant.organizationId, userId: tenant.userId };
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
  await control?.close();
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

    // The clock stands still: the guard rolls the segment and rewrites the key's old records as
    // soon as it sees the tombstone (min.compaction.lag.ms is 0), whatever segment.ms and
    // max.compaction.lag.ms say, and proves it on the next tick.
    const filedAt = clock.now();
    const purged = await waitForRow(id, "purged", (s) => s !== "tombstoned" && s !== "received");
    expect(purged.status).toBe("purged");
    const verified = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    for (const t of verified) {
      expect(t.passRequestedAt?.getTime() ?? filedAt).toBe(filedAt);
      expect(t.purgedAt!.getTime()).toBe(filedAt);
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

  it("flags a request at risk at filing when min.compaction.lag.ms would miss it, then overrides the setting for the key and purges it before the deadline", async () => {
    await laggedTopic("held", 3_600_000, ["user-9"], "kept by min lag");
    const deadlineInMs = 12_000;
    const id = await requestErasure("user-9", "held", deadlineInMs);

    // At risk from the moment it is filed, with the preflight's reason and fix.
    const filed = await rest(compliance, "GET", `/erasure-requests/${id}`);
    expect(filed.body.status).toBe("at-risk");
    expect(filed.body.statusReason).toMatch(/^Filed at risk: held — min\.compaction\.lag\.ms \(1 h\)/);
    expect(filed.body.statusReason).toMatch(/Fix: min\.compaction\.lag\.ms=\d+\./);
    const [tombstone] = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    const overrideAt = tombstone!.writtenAt.getTime() + deadlineInMs - PROOF_MS;
    // The guard says what it waits for, and until when.
    const waiting = await eventually("the tombstone says what it waits for", 30_000, async () => {
      const row = await h.db.prisma.erasureTombstone.findUniqueOrThrow({ where: { id: tombstone!.id } });
      return (row.waitingFor as { reason: string; until: string } | null) ?? undefined;
    });
    expect(waiting.reason).toMatch(/min\.compaction\.lag\.ms \(1 h\) protects the key's records/);
    expect(new Date(waiting.until).getTime()).toBe(overrideAt);
    expect(await values("held", 0)).toEqual(["kept by min lag", null]);

    // Once only the proof's own time is left, the rewrite ignores min lag for this key.
    clock.advance(overrideAt - clock.now());
    const purged = await waitForRow(id, "purged", (s) => s === "purged" || s === "failed");
    expect(purged.status).toBe("purged");
    const [proven] = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    expect(proven!.purgedAt!.getTime()).toBeLessThanOrEqual(purged.deadlineAt.getTime());
    expect(await values("held", 0)).toEqual([null]);
  }, 60_000);

  it("fails a request past its deadline with a reason people read, then re-verifies it once purged, and reopens another with an extension", async () => {
    await laggedTopic("late", 3_600_000, ["user-11", "user-12"], "old");
    const first = await requestErasure("user-11", "late", 12_000);
    const second = await requestErasure("user-12", "late", 12_000);
    // Past both deadlines before the guard could rewrite: both fail.
    clock.advance(12_001);
    for (const id of [first, second]) {
      const failed = await waitForRow(id, "failed", (s) => s === "failed");
      expect(failed.statusReason).toMatch(/^The deadline \(\d+ \w+ \d{4}, \d\d:\d\d:\d\d UTC\) passed/);
    }
    // The guard still purges a failed request's keys (the override was due before the deadline).
    await eventually("both tombstones purged after the deadline", 30_000, async () => {
      const rows = await h.db.prisma.erasureTombstone.findMany({
        where: { requestId: { in: [first, second] } },
      });
      return rows.every((r) => storedTombstoneStatus(r.status) !== "tombstoned") || undefined;
    });

    // Re-verify: proven purged since, so the request is purged, late, by the caller.
    const reverified = await rest(compliance, "POST", `/erasure-requests/${first}/reverify`, {});
    expect(reverified.status, JSON.stringify(reverified.body)).toBe(200);
    expect(reverified.body).toMatchObject({ verified: true, unpurgedPartitions: 0 });
    const purgedEvent = await h.db.prisma.auditEvent.findFirstOrThrow({
      where: { targetId: first, action: "erasure.purged" },
    });
    expect(purgedEvent.actorType).toBe("apiKey");
    expect((purgedEvent.data as { beforeDeadlineMs: number }).beforeDeadlineMs).toBeLessThan(0);

    // Extend: a failed request whose tombstones were written goes back to work with more time.
    const extended = await rest(compliance, "POST", `/erasure-requests/${second}/extensions`, {
      deadlineAt: new Date(clock.now() + 60_000).toISOString(),
      reason: "the controller agreed to a new date",
    });
    expect(extended.status, JSON.stringify(extended.body)).toBe(200);
    expect(["tombstoned", "purged"]).toContain(extended.body.status);
    const reopened = await waitForRow(second, "purged again", (s) => s === "purged");
    expect(reopened.extensions).toHaveLength(1);
    const events = await h.db.prisma.auditEvent.findMany({
      where: { targetId: second },
      orderBy: { seq: "asc" },
      select: { action: true, actorType: true },
    });
    const steps = events.filter((e) => e.action !== "erasure.pass.run");
    expect(steps.map((e) => e.action).slice(-3)).toEqual([
      "erasure.failed",
      "erasure.deadline.extended",
      "erasure.purged",
    ]);
    expect(steps.at(-2)!.actorType).toBe("apiKey");
  }, 60_000);

  it("refuses a config change that would make a pending request miss its deadline, naming it, unless an owner overrides it; the key is purged in time either way", async () => {
    // 5 s of min lag: the request meets its 60 s deadline, and stays pending while the clock stands.
    await laggedTopic("guarded", 5_000, ["user-13"], "private");
    const deadlineInMs = 60_000;
    const id = await requestErasure("user-13", "guarded", deadlineInMs);
    expect((await rest(compliance, "GET", `/erasure-requests/${id}`)).body.status).toBe("tombstoned");

    const huge = { set: { "min.compaction.lag.ms": "9000000000000" } };
    const refused = await rest(admin, "PATCH", "/topics/guarded/configs", huge);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain(id);
    expect(refused.body.erasureRequests).toEqual([{ id, deadlineAt: expect.any(String) }]);
    // An API key is not an owner: asking for the override is refused too.
    const keyOverride = await rest(admin, "PATCH", "/topics/guarded/configs", {
      ...huge,
      overrideErasureDeadlines: true,
    });
    expect(keyOverride.status).toBe(422);
    const configs = await rest(admin, "GET", "/topics/guarded");
    expect(JSON.stringify(configs.body)).not.toContain("9000000000000");

    // The owner overrides it explicitly: allowed, audited with the request it endangers.
    const changed = await alterTopicConfigs(
      { prisma: h.db.prisma, clock },
      {
        tenantId: owner.tenantId,
        actor: { type: "user", id: owner.userId },
        role: "owner",
        scopes: ["admin"],
        userId: owner.userId,
      },
      { topic: "guarded", set: huge.set, reset: [], validateOnly: false, overrideErasureDeadlines: true },
    );
    expect(changed.overriddenErasures).toEqual([{ id, deadlineAt: expect.any(String) }]);
    const audit = await h.db.prisma.auditEvent.findFirstOrThrow({
      where: { action: "topic.configs.erasure-override" },
    });
    expect(audit.actorId).toBe(owner.userId);
    expect(audit.data).toMatchObject({ erasureRequests: [{ id }] });

    // The guard purges the key anyway, overriding the setting once only the proof's time is left.
    const [tombstone] = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    await eventually("the worker reopened the partition with the new configs", 30_000, async () => {
      const row = await h.db.prisma.erasureTombstone.findUniqueOrThrow({ where: { id: tombstone!.id } });
      const waiting = row.waitingFor as { reason: string } | null;
      return waiting?.reason.includes("min.compaction.lag.ms (") && waiting.reason.includes(" d)")
        ? true
        : undefined;
    });
    clock.advance(tombstone!.writtenAt.getTime() + deadlineInMs - PROOF_MS - clock.now());
    const purged = await waitForRow(id, "purged", (s) => s === "purged" || s === "failed");
    expect(purged.status).toBe("purged");
    expect(await values("guarded", 0)).toEqual([null]);
  }, 60_000);
});
