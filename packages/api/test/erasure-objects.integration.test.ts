import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataPlaneClient } from "@lastword/dataplane";
import { eventually } from "@lastword/db/testing";
import { scanEvidenceSchema } from "@lastword/erasure";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, REDIS_URL, rest, startHarness } from "./api-harness";
import { startWorkerProcess, type WorkerProcess } from "./worker-process";

// An erasure on a partition kept in object storage, after the machine that held it was lost: the
// new owner rewrites only the segments whose key filter may hold the key, the objects that held
// old values are deleted, and the proof names every object scanned, filtered and deleted.
const TICK_MS = 300;
const LEASE_TTL_MS = 1_500;
const SUBJECT = "subject-42";

let h: Harness;
let admin: string;
let compliance: string;
let dataPlane: DataPlaneClient;
let objects: string;
const dirs: string[] = [];
const running: WorkerProcess[] = [];

function startMachine(): Promise<WorkerProcess & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "lastword-erasure-objects-"));
  dirs.push(dataDir);
  return startWorkerProcess({
    databaseUrl: h.db.url,
    dataDir,
    secret: h.secret,
    redisUrl: REDIS_URL,
    redisPrefix: h.redisPrefix,
    tickMs: TICK_MS,
    leaseTtlMs: LEASE_TTL_MS,
    objectStore: objects,
    // Superseded objects keep the default 5-minute grace: an erasure deletes those below its
    // tombstone at once anyway.
    env: { WORKER_CONSOLIDATE_AFTER_MS: "0" },
  }).then((worker) => {
    running.push(worker);
    return { ...worker, dataDir };
  });
}

async function partitionId(): Promise<string> {
  return (await h.db.prisma.partition.findFirstOrThrow({ where: { topic: { name: "people" } } })).id;
}

beforeAll(async () => {
  h = await startHarness("erasure_objects");
  objects = mkdtempSync(join(tmpdir(), "lastword-erasure-objects-store-"));
  dirs.push(objects);
  const tenant = await h.server.provisionTenant({
    name: "Erasure objects",
    email: "dpo@erasure-objects.example",
    password: "erasure-pass-1",
  });
  admin = (await h.server.createApiKey({ ...tenant, name: "admin", scopes: ["admin"] })).key;
  compliance = (
    await h.server.createApiKey({
      ...tenant,
      name: "dpo",
      scopes: ["topics:read", "groups:read", "erasure:read", "erasure:write"],
    })
  ).key;
  dataPlane = new DataPlaneClient({ prisma: h.db.prisma, secret: h.secret, ownerWaitMs: 15_000 });
}, 60_000);

afterAll(async () => {
  for (const worker of running) await worker.kill();
  dataPlane?.close();
  await h?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("erasure with partitions in object storage", () => {
  it("after a machine loss, purges the key from every object holding it and proves it object by object", async () => {
    const a = await startMachine();
    const created = await rest(h.server, { apiKey: admin }, "POST", "/topics", {
      name: "people",
      partitions: 1,
      configs: {
        "cleanup.policy": "compact",
        "segment.bytes": 2048,
        "local.retention.bytes": 0,
        // Only the erasure rewrites here: no pass by ratio, none by lag.
        "min.cleanable.dirty.ratio": 1,
        "delete.retention.ms": 60_000,
        // A rewrite's old files go at once (their bytes count until unlinked).
        "file.delete.delay.ms": 0,
      },
    });
    expect(created.status).toBe(201);
    const records = Array.from({ length: 60 }, (_, n) => ({
      key: { type: "string", data: n === 3 || n === 5 ? SUBJECT : `person-${n}` },
      value: { type: "string", data: `${n}: ${"details ".repeat(20)}` },
    }));
    for (const record of records) {
      expect(
        (await rest(h.server, { apiKey: admin }, "POST", "/topics/people/records", { records: [record] }))
          .status,
      ).toBe(200);
    }
    const id = await partitionId();
    await eventually("every closed segment is in object storage only", 60_000, async () => {
      const { segments } = await dataPlane.segments({ partitionId: id });
      const closed = segments.filter((s) => !s.active);
      return closed.length >= 3 && closed.every((s) => s.remote) ? true : undefined;
    });
    const before = await h.db.prisma.partitionObject.findMany({
      where: { partitionId: id, kind: "segment" },
    });
    // The segment objects that hold the subject (offsets 3 and 5) before the erasure.
    const holding = before
      .filter((row) => row.baseOffset <= 5n && row.lastOffset >= 3n)
      .map((row) => row.objectKey);
    expect(holding.length).toBeGreaterThan(0);

    // The machine is lost, disk and all; another takes the partition over from the bucket.
    await a.kill();
    rmSync(a.dataDir, { recursive: true, force: true });
    const b = await startMachine();
    await eventually("b owns the partition", 10 * LEASE_TTL_MS, async () => {
      const row = await h.db.prisma.partition.findUniqueOrThrow({ where: { id } });
      return row.ownerWorkerId === b.id ? true : undefined;
    });

    const filed = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-requests", {
      keys: [{ type: "string", data: SUBJECT }],
      topics: ["people"],
      deadlineAt: new Date(Date.now() + 30_000).toISOString(),
    });
    expect(filed.status).toBe(201);
    const requestId = (filed.body as { id: string }).id;
    const tombstone = await eventually("the purge is proven", 60_000, async () => {
      const row = await h.db.prisma.erasureTombstone.findFirst({
        where: { requestId, purgedAt: { not: null } },
      });
      return row ?? undefined;
    });
    const evidence = scanEvidenceSchema.parse(tombstone.purgeEvidence);
    expect(evidence.result).toBe("absent");
    const proof = evidence.objects!;
    // Every object below the tombstone is accounted for: read, or ruled out by its key filter.
    expect(proof.scanned.some((o) => o.check === "filtered")).toBe(true);
    expect(proof.scanned.some((o) => o.check === "scanned")).toBe(true);
    const rows = await h.db.prisma.partitionObject.findMany({ where: { partitionId: id } });
    for (const row of rows.filter((r) => r.baseOffset < tombstone.offset)) {
      expect(proof.scanned.map((o) => [o.key, o.sha256])).toContainEqual([row.objectKey, row.sha256]);
    }
    // The objects that held the subject were deleted, and say so; none is in the store.
    for (const key of holding) {
      expect(proof.deleted.map((d) => d.key)).toContain(key);
      expect(existsSync(join(objects, key))).toBe(false);
    }
    // The lost machine's copy is listed as unreachable; the owner's disk was scanned.
    expect(proof.caches).toContainEqual(expect.objectContaining({ workerId: a.id, state: "unreachable" }));
    expect(proof.caches).toContainEqual(expect.objectContaining({ workerId: b.id, state: "owner" }));
    // The erasure's targeted rewrites purged it, never a pass over the whole partition.
    const runs = await h.db.prisma.cleanerRun.findMany({
      where: { partitionId: id, startedAt: { lte: tombstone.purgedAt! } },
      orderBy: { startedAt: "asc" },
    });
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.map((run) => run.trigger)).toEqual(runs.map(() => "targeted"));
    await eventually("the request is purged", 20_000, async () => {
      const res = await rest(h.server, { apiKey: compliance }, "GET", `/erasure-requests/${requestId}`);
      const status = (res.body as { status: string }).status;
      return ["purged", "tombstone-expired", "closed"].includes(status) ? true : undefined;
    });
  });

  it("refuses to promise a deadline while a live worker's bucket keeps old versions with no expiry", async () => {
    const worker = await startMachine();
    const preflight = async () => {
      const res = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-preflight", {
        topics: ["people"],
        deadlineAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      });
      expect(res.status).toBe(200);
      return (
        res.body.topics as {
          preflight: { meetsDeadline: boolean; explanation: string; bucketKeepsVersionsMs?: number | null };
        }[]
      )[0]!.preflight;
    };
    // The worker read its store at start: the filesystem keeps nothing of a deleted object.
    const row = await h.db.prisma.worker.findUniqueOrThrow({ where: { id: worker.id } });
    expect(row.objectStore).toEqual({
      kind: "fs",
      versioning: "disabled",
      noncurrentExpiryDays: null,
      // What its erasure proofs wait for: the preflight adds the same delays.
      tickMs: TICK_MS,
      syncIntervalMs: 1_000,
      consolidateAfterMs: 0,
    });
    expect((await preflight()).bucketKeepsVersionsMs).toBe(0);
    // Another worker of the fleet on a versioned bucket with no lifecycle rule, as it registers itself.
    await h.db.prisma.worker.create({
      data: {
        id: "versioned-bucket-worker",
        address: "http://127.0.0.1:1",
        objectStore: { kind: "s3", versioning: "enabled", noncurrentExpiryDays: null },
      },
    });
    const refused = await preflight();
    expect(refused.meetsDeadline).toBe(false);
    expect(refused.bucketKeepsVersionsMs).toBeNull();
    expect(refused.explanation).toMatch(/keeps old versions of deleted objects with no expiry/);
    // With a rule that expires noncurrent versions after a day, the bucket adds that day.
    await h.db.prisma.worker.update({
      where: { id: "versioned-bucket-worker" },
      data: { objectStore: { kind: "s3", versioning: "enabled", noncurrentExpiryDays: 1 } },
    });
    expect((await preflight()).bucketKeepsVersionsMs).toBe(86_400_000);
    await h.db.prisma.worker.delete({ where: { id: "versioned-bucket-worker" } });
  });
});
