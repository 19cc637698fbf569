import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envelope, LastwordClient } from "@lastword/client";
import { DataPlaneClient } from "@lastword/dataplane";
import { createPrisma, DATABASE_TIMEOUTS, type PrismaClient } from "@lastword/db";
import { createTestDatabase, eventually, TcpProxy, type TestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type ApiServer, createApiServer } from "../src/index";
import { flushUsage } from "../src/services/usage-counter";
import { USAGE_FLUSH_INTERVAL_MS, UsageSpool, usageSpool } from "../src/services/usage-spool";
import { PUBLIC_URL, REDIS_URL, rest, signUp, str } from "./api-harness";
import { startWorkerProcess, type WorkerProcess } from "./worker-process";

// The API server and the worker reach Postgres through TCP relays the test cuts (or freezes); the
// shared server keeps running, and the test reads and checks the database directly (`db.prisma`).
const LEASE_TTL_MS = 1_000;
const PARTITIONS = 2;

let db: TestDatabase;
let apiRelay: TcpProxy;
let workerRelay: TcpProxy;
let apiPrisma: PrismaClient;
let redis: Redis;
let redisPrefix: string;
let dataPlane: DataPlaneClient;
let server: ApiServer;
let worker: WorkerProcess;
let dataDir: string;
let tenant: { organizationId: string; userId: string };
let apiKey: string;

/** How long ago, by the database's clock (the one leases run on), the last of the leases ran out. */
async function leasesExpiredForMs(): Promise<number> {
  const [row] = await db.prisma.$queryRaw<{ ms: number | null }[]>`
    SELECT (EXTRACT(EPOCH FROM (now() AT TIME ZONE 'UTC') - max("leaseExpiresAt")) * 1000)::float8 AS ms
    FROM "Partition"`;
  return row?.ms ?? Number.NEGATIVE_INFINITY;
}

/** Today's UsageCounter values of `tenantId`, read straight from Postgres (not through a relay). */
async function usageInDatabase(tenantId: string): Promise<Record<string, number>> {
  const rows = await db.prisma.usageCounter.findMany({ where: { organizationId: tenantId } });
  const sums: Record<string, number> = {};
  for (const row of rows) sums[row.metric] = (sums[row.metric] ?? 0) + Number(row.value);
  return sums;
}

async function readPartition(key: string, topic: string, partition: number): Promise<Map<number, string>> {
  const stored = new Map<number, string>();
  for (let offset = 0; ; ) {
    const answer = await rest(
      server,
      { apiKey: key },
      "GET",
      `/topics/${topic}/partitions/${partition}/records?offset=${offset}&limit=1000`,
    );
    expect(answer.status).toBe(200);
    const body = answer.body as {
      records: { offset: number; value: { data: string } }[];
      nextOffset: number;
    };
    for (const r of body.records) stored.set(r.offset, r.value.data);
    if (body.records.length === 0) return stored;
    offset = body.nextOffset;
  }
}

beforeAll(async () => {
  db = await createTestDatabase("lastword_test_api_pg_outage");
  const upstream = new URL(db.url);
  apiRelay = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
  workerRelay = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
  apiPrisma = createPrisma(apiRelay.relayUrl(db.url), { maxConnections: 5 });
  redis = new Redis(REDIS_URL);
  redisPrefix = `lwtest-pg-outage-${randomBytes(4).toString("hex")}`;
  const secret = randomBytes(16).toString("hex");
  dataPlane = new DataPlaneClient({ prisma: apiPrisma, secret, ownerWaitMs: 5_000 });
  server = createApiServer({
    prisma: apiPrisma,
    redis,
    dataPlane,
    publicUrl: PUBLIC_URL,
    authSecret: randomBytes(32).toString("hex"),
    redisPrefix,
  });
  dataDir = await mkdtemp(join(tmpdir(), "lastword-api-pg-outage-"));
  worker = await startWorkerProcess({
    databaseUrl: workerRelay.relayUrl(db.url),
    dataDir,
    secret,
    redisUrl: REDIS_URL,
    redisPrefix,
    leaseTtlMs: LEASE_TTL_MS,
  });
  tenant = await server.provisionTenant({
    name: "Outage",
    email: "outage@example.com",
    password: "outage-pass-1",
  });
  ({ key: apiKey } = await server.createApiKey({ ...tenant, name: "producer" }));
});

afterAll(async () => {
  apiRelay?.restore();
  workerRelay?.restore();
  await server?.close(2_000);
  await worker?.stop();
  dataPlane?.close();
  await apiPrisma?.$disconnect();
  const keys = redis ? await redis.keys(`${redisPrefix}:*`) : [];
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
  await apiRelay?.close();
  await workerRelay?.close();
  await db?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("Postgres unreachable from the API server and the worker", () => {
  it("keeps producing and reading through handleRest until the leases have lapsed three lifetimes, loses nothing and counts usage once", async () => {
    // A key this process has never looked up (it exists in Postgres, but only Postgres knows it).
    const { key: unseenKey } = await server.createApiKey({ ...tenant, name: "never-used" });
    const session = await signUp(server, "console@example.com");
    expect((await rest(server, { cookie: session.cookie }, "GET", "/topics")).status).toBe(200);
    const created = await rest(server, { apiKey }, "POST", "/topics", {
      name: "orders",
      partitions: PARTITIONS,
    });
    expect(created.status).toBe(201);
    const acked = Array.from({ length: PARTITIONS }, () => new Map<number, string>());
    let outageRecords = 0;
    let outageBytes = 0;
    const produce = async (tag: string, headers: Record<string, string> = {}) => {
      const records = Array.from({ length: PARTITIONS * 2 }, (_, i) => ({
        key: str(`k-${i}`),
        value: str(`${tag}-${i}`),
        partition: i % PARTITIONS,
      }));
      const answer = await rest(server, { apiKey }, "POST", "/topics/orders/records", { records }, headers);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const results = answer.body.results as { partition: number; offset: number }[];
      results.forEach((r, i) => {
        acked[r.partition]!.set(r.offset, records[i]!.value.data);
      });
      const bytes = records.reduce((n, r) => n + r.key.data.length + r.value.data.length, 0);
      return { answer, records: records.length, bytes };
    };
    // Warm this process up: the key, the quota, the topic and both partitions' owners are known.
    await produce("before");
    for (let p = 0; p < PARTITIONS; p++) expect((await readPartition(apiKey, "orders", p)).size).toBe(2);
    // Write-behind: the warm-up's usage is written within USAGE_FLUSH_DELAY_MS; settle it now.
    expect(await flushUsage(apiPrisma)).toBe(true);
    const usageBefore = await usageInDatabase(tenant.organizationId);
    const epochs = await db.prisma.partition.findMany({
      select: { id: true, leaseEpoch: true },
      orderBy: { id: "asc" },
    });

    apiRelay.cut();
    workerRelay.cut();
    // The outage lasts until the worker's leases have been expired in Postgres for three lifetimes
    // (by the database's clock): long past them and the API's cache TTLs.
    let n = 0;
    for (; n <= 20 || (await leasesExpiredForMs()) < 3 * LEASE_TTL_MS; n++) {
      const batch = await produce(`during-${n}`);
      outageRecords += batch.records;
      outageBytes += batch.bytes;
      if (n % 5 === 0) {
        for (let p = 0; p < PARTITIONS; p++) {
          const stored = await readPartition(apiKey, "orders", p);
          for (const [offset, value] of acked[p]!) expect(stored.get(offset)).toBe(value);
        }
      }
    }
    expect(n).toBeGreaterThan(20);

    // The stored-bytes total is re-summed from Postgres when its Redis copy lapses: the last total
    // this process summed stands in.
    await redis.del(`${redisPrefix}:stored:${tenant.organizationId}`);
    const afterLapse = await produce("stored-total-lapsed");
    outageRecords += afterLapse.records;
    outageBytes += afterLapse.bytes;

    // @lastword/client's default: the binary frames body (same produce service behind it).
    const client = new LastwordClient({
      baseUrl: PUBLIC_URL,
      apiKey,
      fetch: (req) => server.handleRest(req),
    });
    const binaryRecords = Array.from({ length: PARTITIONS * 2 }, (_, i) => ({
      key: envelope.string(`k-${i}`),
      value: envelope.string(`binary-${i}`),
      partition: i % PARTITIONS,
    }));
    const binary = await client.records.produce("orders", binaryRecords);
    binary.results.forEach((r, i) => {
      if (r.offset === undefined) throw new Error(`binary produce failed: ${JSON.stringify(r)}`);
      acked[r.partition]!.set(r.offset, `binary-${i}`);
    });
    outageRecords += binaryRecords.length;
    outageBytes += binaryRecords.reduce((n, _, i) => n + `k-${i}`.length + `binary-${i}`.length, 0);

    // Key lookups and offsets route the same way.
    const keyed = await rest(server, { apiKey }, "POST", "/topics/orders/records", {
      records: [{ key: str("lookup-me"), value: str("found") }],
    });
    expect(keyed.status, JSON.stringify(keyed.body)).toBe(200);
    const [placed] = keyed.body.results as { partition: number; offset: number }[];
    acked[placed!.partition]!.set(placed!.offset, "found");
    outageRecords += 1;
    outageBytes += "lookup-me".length + "found".length;
    const latest = await rest(server, { apiKey }, "GET", "/topics/orders/keys/lookup-me");
    expect(latest.status, JSON.stringify(latest.body)).toBe(200);
    expect(latest.body).toMatchObject({ partition: placed!.partition, offset: placed!.offset });
    expect(latest.body.value).toMatchObject({ data: "found" });
    const offsets = await rest(server, { apiKey }, "GET", "/topics/orders/partitions/1/offsets");
    expect(offsets.status, JSON.stringify(offsets.body)).toBe(200);
    expect(offsets.body.latest).toBeGreaterThan(Math.max(...acked[1]!.keys()));

    // A consumer's cold start (snapshot, and a replay) finds the topic through the same cached
    // routing: each key's latest acknowledged value, with offsets past every acknowledged record.
    for (const via of ["snapshot", "replay"] as const) {
      const { state, offsets } = await client.replayToMap("orders", { via });
      for (let i = 0; i < PARTITIONS * 2; i++) {
        expect(state.get(`k-${i}`), `${via} k-${i}`).toMatchObject({ type: "string", data: `binary-${i}` });
      }
      for (let p = 0; p < PARTITIONS; p++) {
        expect(offsets[p], `${via} partition ${p}`).toBeGreaterThan(Math.max(...acked[p]!.keys()));
      }
    }

    // Idempotency-Key dedupe lives in Redis: a retry during the outage gets the first answer and
    // writes (and counts) nothing again.
    const first = await produce("idempotent", { "idempotency-key": "during-outage-1" });
    outageRecords += first.records;
    outageBytes += first.bytes;
    const retried = await rest(
      server,
      { apiKey },
      "POST",
      "/topics/orders/records",
      {
        records: Array.from({ length: PARTITIONS * 2 }, (_, i) => ({
          key: str(`k-${i}`),
          value: str(`idempotent-${i}`),
          partition: i % PARTITIONS,
        })),
      },
      { "idempotency-key": "during-outage-1" },
    );
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(first.answer.body);

    // What truly needs the database is refused as a retriable 503, not a 500.
    for (const refused of [
      await rest(server, { cookie: session.cookie }, "GET", "/topics"),
      await rest(server, { apiKey: unseenKey }, "GET", "/topics/orders/partitions/0/records"),
      await rest(server, { apiKey }, "POST", "/topics", { name: "created-during-outage", partitions: 1 }),
    ]) {
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.body).toMatchObject({ code: "DATABASE_UNAVAILABLE", status: 503 });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }

    // Nothing of the outage's usage reached Postgres yet: it waits in this process.
    expect(await usageInDatabase(tenant.organizationId)).toEqual(usageBefore);
    expect(usageSpool(apiPrisma).backlogged).toBe(true);

    apiRelay.restore();
    workerRelay.restore();
    const expected = {
      producedRecords: (usageBefore.producedRecords ?? 0) + outageRecords,
      producedBytes: (usageBefore.producedBytes ?? 0) + outageBytes,
    };
    // Written once: the spool holds nothing (not even a write of unknown outcome) and has stopped
    // retrying, so no later flush can add to the total.
    await eventually("usage written and the spool empty", 10_000, async () => {
      const spool = usageSpool(apiPrisma);
      return spool.waiting === 0 && !spool.backlogged ? true : undefined;
    });
    expect(await usageInDatabase(tenant.organizationId)).toEqual(expected);

    // Every acknowledged record is there, and nothing else (the idempotent retry wrote nothing).
    for (let p = 0; p < PARTITIONS; p++) {
      const stored = await readPartition(apiKey, "orders", p);
      expect(stored).toEqual(acked[p]);
    }
    // The worker kept its leases: nobody took the partitions over meanwhile.
    await eventually("leases renewed", 5_000, async () => {
      const rows = await db.prisma.partition.findMany({ select: { leaseExpiresAt: true } });
      return rows.every((r) => r.leaseExpiresAt && r.leaseExpiresAt.getTime() > Date.now())
        ? true
        : undefined;
    });
    expect(
      await db.prisma.partition.findMany({ select: { id: true, leaseEpoch: true }, orderBy: { id: "asc" } }),
    ).toEqual(epochs);
    // And the database is needed again, and answers.
    expect((await rest(server, { apiKey: unseenKey }, "GET", "/topics/orders")).status).toBe(200);
  });
});

/** `call`'s answer and how long it took. */
async function timed<T>(call: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await call();
  return { answer, ms: performance.now() - started };
}

// Postgres blackholed: the relays accept connections and then pass no byte either way (a frozen
// server, a path dropping packets). Nothing is refused, so only the clients' own timeouts
// (DATABASE_TIMEOUTS) end a wait.
describe("Postgres blackholed (connections accepted, nothing answered)", () => {
  it("answers 503 DATABASE_UNAVAILABLE with Retry-After within the client timeouts, keeps serving cached reads, and recovers by itself", async () => {
    const created = await rest(server, { apiKey }, "POST", "/topics", { name: "blackholed", partitions: 1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const produce = (value: string) =>
      rest(server, { apiKey }, "POST", "/topics/blackholed/records", {
        records: [{ key: str("k"), value: str(value) }],
      });
    const before = await produce("before");
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const read = () => rest(server, { apiKey }, "GET", "/topics/blackholed/partitions/0/records?offset=0");
    expect((await read()).status).toBe(200);

    apiRelay.freeze();
    workerRelay.freeze();
    // Listing topics needs Postgres. The first statement meets a warm pool: its query timeout ends
    // the wait. Later ones may queue behind the pool's other stuck statements (the usage spool
    // retries meanwhile): the pool's wait, then one statement's timeout, bounds them.
    const waits: number[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const { answer, ms } = await timed(() => rest(server, { apiKey }, "GET", "/topics"));
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.body).toMatchObject({ code: "DATABASE_UNAVAILABLE", status: 503 });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      waits.push(ms);
    }
    expect(waits[0]).toBeLessThan(DATABASE_TIMEOUTS.poolWaitMs);
    for (const ms of waits) expect(ms).toBeLessThan(DATABASE_TIMEOUTS.poolWaitMs + DATABASE_TIMEOUTS.queryMs);
    // A read is routed from the cache (stale-if-unreachable) and served by the worker, which needs
    // no database for it.
    const during = await read();
    expect(during.status, JSON.stringify(during.body)).toBe(200);
    expect((during.body.records as { value: { data: string } }[]).map((r) => r.value.data)).toEqual([
      "before",
    ]);

    apiRelay.restore();
    workerRelay.restore();
    // Nothing to restart: the stuck connections were dropped from the pools, new ones connect.
    await eventually("topics listed again", 30_000, async () => {
      const listed = await rest(server, { apiKey }, "GET", "/topics");
      return listed.status === 200 ? listed : undefined;
    });
    const after = await produce("after");
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    const all = await read();
    expect((all.body.records as { value: { data: string } }[]).map((r) => r.value.data)).toEqual([
      "before",
      "after",
    ]);
  });
});

/**
 * The spool over a client whose interactive transactions run `beforeCommit` after the callback,
 * right before Prisma sends COMMIT: the moment a connection loss leaves the outcome unknown.
 */
function withCommitHook(prisma: PrismaClient, beforeCommit: { run: () => void }): PrismaClient {
  return new Proxy(prisma, {
    get(target, property) {
      if (property === "$transaction") {
        return (fn: (tx: unknown) => Promise<unknown>, options?: unknown) =>
          (target.$transaction as (f: typeof fn, o?: unknown) => Promise<unknown>)(async (tx) => {
            const result = await fn(tx);
            beforeCommit.run();
            return result;
          }, options);
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("usage spool", () => {
  const day = new Date(Date.UTC(2026, 10, 30));

  async function counter(tenantId: string): Promise<number> {
    const row = await db.prisma.usageCounter.findUnique({
      where: { organizationId_metric_day: { organizationId: tenantId, metric: "producedRecords", day } },
    });
    return Number(row?.value ?? 0);
  }

  /** A spool over its own relay to the database, both closed when the test finishes. */
  async function spoolOverRelay(hook: { run: () => void }) {
    const upstream = new URL(db.url);
    const relay = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
    const prisma = createPrisma(relay.relayUrl(db.url), { maxConnections: 2 });
    onTestFinished(async () => {
      await prisma.$disconnect();
      await relay.close();
    });
    return { relay, spool: new UsageSpool(withCommitHook(prisma, hook)) };
  }

  const add = (spool: UsageSpool, tenantId: string, value: bigint) =>
    spool.add([{ tenantId, metric: "producedRecords", day, value }]);

  it("writes the increments of produces close together in one flush, without anyone waiting for it", async () => {
    const tenantId = `spool-coalesced-${randomBytes(3).toString("hex")}`;
    let flushes = 0;
    const { spool } = await spoolOverRelay({ run: () => flushes++ });
    for (const value of [2n, 3n, 4n]) add(spool, tenantId, value);
    // Merged into one row, waiting for the USAGE_FLUSH_DELAY_MS timer: add() never waits for it.
    expect(spool.waiting).toBe(1);
    expect(await counter(tenantId)).toBe(0);
    await eventually("usage written", 10_000, async () =>
      (await counter(tenantId)) === 9 ? true : undefined,
    );
    expect(flushes).toBe(1);
    expect(spool.waiting).toBe(0);
  });

  it("keeps usage it could not send while connections are refused, and writes it once they are not", async () => {
    const tenantId = `spool-refused-${randomBytes(3).toString("hex")}`;
    const { relay, spool } = await spoolOverRelay({ run: () => {} });
    relay.cut();
    add(spool, tenantId, 3n);
    await spool.flush();
    expect(spool.backlogged).toBe(true);
    add(spool, tenantId, 4n);
    expect(spool.waiting).toBe(1);
    relay.restore();
    // The retry timer alone writes it (no drain): within a couple of retry intervals. The backlog
    // flag is cleared once the flush's COMMIT has answered, which a loaded run saw after the row
    // was already readable: it is part of the state waited for, not read right after.
    await eventually(
      "spooled usage written and the backlog cleared",
      5 * USAGE_FLUSH_INTERVAL_MS,
      async () =>
        (await counter(tenantId)) === 7 && spool.waiting === 0 && !spool.backlogged ? true : undefined,
    );
  });

  it("re-sends a flush whose connection was lost before COMMIT reached the server, once", async () => {
    const tenantId = `spool-aborted-${randomBytes(3).toString("hex")}`;
    const hook = { run: () => {} };
    const { relay, spool } = await spoolOverRelay(hook);
    add(spool, tenantId, 5n);
    await spool.flush();
    expect(await counter(tenantId)).toBe(5);

    hook.run = () => relay.cut();
    add(spool, tenantId, 7n);
    // Never rejects: the produce it belongs to is not failed by its usage.
    await spool.flush();
    hook.run = () => {};
    expect(spool.backlogged).toBe(true);
    expect(spool.waiting).toBe(1);
    expect(await counter(tenantId)).toBe(5);
    // More usage while the backlog waits merges into the same row.
    add(spool, tenantId, 1n);

    relay.restore();
    expect(await spool.drain(5_000)).toBe(true);
    expect(await counter(tenantId)).toBe(13);
  });

  it("does not re-send a flush that committed although its COMMIT was never answered", async () => {
    const tenantId = `spool-committed-${randomBytes(3).toString("hex")}`;
    const hook = { run: () => {} };
    const { relay, spool } = await spoolOverRelay(hook);
    hook.run = () => {
      // COMMIT reaches the server; its answer is dropped, then (once it has committed) the connection goes.
      relay.muteReplies();
      void eventually("the unanswered COMMIT applied", 10_000, async () =>
        (await counter(tenantId)) === 7 ? true : undefined,
      ).then(() => relay.cut());
    };
    add(spool, tenantId, 7n);
    await spool.flush();
    hook.run = () => {};
    expect(await counter(tenantId)).toBe(7);
    // The spool cannot know yet whether it was written, so it keeps it until Postgres can tell.
    expect(spool.waiting).toBe(1);

    relay.restore();
    expect(await spool.drain(5_000)).toBe(true);
    expect(await counter(tenantId)).toBe(7);
  });
});
