import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@lastword/db/testing";
import { scanEvidenceSchema } from "@lastword/erasure";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, REDIS_URL, rest, startHarness } from "./api-harness";
import { provisionErasureTenant } from "./erasure-fixture";
import { startWorkerProcess, type WorkerProcess } from "./worker-process";

// What the console and the API promise about an erasure is what the worker keeps: on `npm start`'s
// setup (object store on, the default 5 s tick, superseded-object grace and consolidation), the
// preflight's worst case for a topic is compared with a purge measured on that topic's configs.
const DEFAULT_TICK_MS = 5_000;

let h: Harness;
let admin: string;
let compliance: string;
let worker: WorkerProcess;
const dirs: string[] = [];

beforeAll(async () => {
  h = await startHarness("erasure_estimate");
  const objects = mkdtempSync(join(tmpdir(), "lastword-erasure-estimate-store-"));
  const dataDir = mkdtempSync(join(tmpdir(), "lastword-erasure-estimate-"));
  dirs.push(objects, dataDir);
  worker = await startWorkerProcess({
    databaseUrl: h.db.url,
    dataDir,
    secret: h.secret,
    redisUrl: REDIS_URL,
    redisPrefix: h.redisPrefix,
    tickMs: DEFAULT_TICK_MS,
    objectStore: objects,
  });
  ({ admin, compliance } = await provisionErasureTenant(h, "estimate"));
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await h?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("erasure estimates", () => {
  it("purges and proves a key on every tier within the preflight's worst case, and within a minute", async () => {
    // The topic: a fast max lag and tombstone retention, one partition, a handful of records.
    const created = await rest(h.server, { apiKey: admin }, "POST", "/topics", {
      name: "customers",
      partitions: 1,
      configs: { "cleanup.policy": "compact", "max.compaction.lag.ms": 2_000, "delete.retention.ms": 3_000 },
    });
    expect(created.status).toBe(201);
    for (const n of [1, 2, 3, 4, 5]) {
      const res = await rest(h.server, { apiKey: admin }, "POST", "/topics/customers/records", {
        records: [
          { key: { type: "string", data: `user-${n}` }, value: { type: "string", data: `customer ${n}` } },
          { key: { type: "string", data: "user-42" }, value: { type: "string", data: `address ${n}` } },
        ],
      });
      expect(res.status).toBe(200);
    }
    const deadlineAt = new Date(Date.now() + 60_000).toISOString();
    const preview = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-preflight", {
      topics: ["customers"],
      deadlineAt,
    });
    const preflight = (
      preview.body.topics as {
        preflight: {
          worstCasePurgeMs: number;
          meetsDeadline: boolean;
          delays: { step: string; ms: number }[];
        };
      }[]
    )[0]!.preflight;
    expect(preflight.meetsDeadline).toBe(true);
    // The object store's waits are in the estimate: the upload and the shared objects' consolidation.
    expect(preflight.delays.map((d) => d.step).join("; ")).toMatch(/uploaded.*consolidate/);

    const filed = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-requests", {
      keys: [{ type: "string", data: "user-42" }],
      topics: ["customers"],
      deadlineAt,
    });
    expect(filed.status).toBe(201);
    const { id, receivedAt } = filed.body as { id: string; receivedAt: string };
    const purged = await eventually("the request is purged", 90_000, async () => {
      const res = await rest(h.server, { apiKey: compliance }, "GET", `/erasure-requests/${id}`);
      const body = res.body as { status: string; tombstones: { purgedAt: string | null }[] };
      return body.status === "purged" || body.status === "failed" ? body : undefined;
    });
    expect(purged.status).toBe("purged");
    const provenAt = Math.max(...purged.tombstones.map((t) => Date.parse(t.purgedAt!)));
    const measuredMs = provenAt - Date.parse(receivedAt);
    expect(measuredMs).toBeLessThanOrEqual(preflight.worstCasePurgeMs);
    expect(measuredMs).toBeLessThan(60_000);
  }, 120_000);

  it("deletes a commit object the key shares with other partitions without waiting for their 30 s consolidation", async () => {
    for (const [name, partitions] of [
      ["profiles", 1],
      ["orders", 3],
    ] as const) {
      const res = await rest(h.server, { apiKey: admin }, "POST", "/topics", {
        name,
        partitions,
        configs: { "cleanup.policy": "compact" },
      });
      expect(res.status).toBe(201);
    }
    const record = (key: string, value: string) => ({
      key: { type: "string", data: key },
      value: { type: "string", data: value },
    });
    const profiles = await h.db.prisma.partition.findFirstOrThrow({ where: { topic: { name: "profiles" } } });
    // Produce to both topics at once until a commit object holds both the key's old value and
    // another partition's records (the commit window is shared by every partition of the worker).
    const shared = await eventually("a commit object shared with another partition", 30_000, async () => {
      await Promise.all([
        rest(h.server, { apiKey: admin }, "POST", "/topics/profiles/records", {
          records: [record("user-7", "old address")],
        }),
        ...[0, 1, 2].map((partition) =>
          rest(h.server, { apiKey: admin }, "POST", "/topics/orders/records", {
            records: [{ ...record(`order-${partition}`, "an order"), partition }],
          }),
        ),
      ]);
      const rows = await h.db.prisma.partitionObject.findMany({
        where: { kind: "commit", objectKey: { startsWith: "commit/" } },
        select: { partitionId: true, objectKey: true, createdAt: true },
      });
      const mine = rows.filter((r) => r.partitionId === profiles.id);
      return mine.find((m) => rows.some((r) => r.objectKey === m.objectKey && r.partitionId !== profiles.id));
    });
    const filed = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-requests", {
      keys: [{ type: "string", data: "user-7" }],
      topics: ["profiles"],
      deadlineAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(filed.status).toBe(201);
    const tombstone = await eventually("the purge is proven", 90_000, async () => {
      const row = await h.db.prisma.erasureTombstone.findFirst({
        where: { requestId: (filed.body as { id: string }).id, purgedAt: { not: null } },
      });
      return row ?? undefined;
    });
    const deleted = scanEvidenceSchema.parse(tombstone.purgeEvidence).objects!.deleted;
    const gone = deleted.find((d) => d.key === shared.objectKey);
    expect(gone).toBeDefined();
    // The partitions sharing it consolidated at once (this worker hosts them), well before the
    // 30 s their rows would otherwise wait.
    expect(Date.parse(gone!.deletedAt)).toBeLessThan(shared.createdAt.getTime() + 30_000);
  }, 150_000);
});
