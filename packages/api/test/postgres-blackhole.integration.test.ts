import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataPlaneClient } from "@lastword/dataplane";
import { createPrisma, DATABASE_TIMEOUTS, type PrismaClient } from "@lastword/db";
import { createTestDatabase, eventually, TcpProxy, type TestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, createApiServer } from "../src/index";
import { PUBLIC_URL, REDIS_URL, rest, str } from "./api-harness";
import { startWorkerProcess, type WorkerProcess } from "./worker-process";

// Postgres blackholed: the relays in front of it accept connections and then pass no byte either
// way (a frozen server, a path dropping packets), for the API server and the worker alike. Nothing
// is refused, so only the clients' own timeouts (DATABASE_TIMEOUTS) end a wait.
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
let apiKey: string;

beforeAll(async () => {
  db = await createTestDatabase("lastword_test_api_pg_blackhole");
  const upstream = new URL(db.url);
  apiRelay = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
  workerRelay = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
  apiPrisma = createPrisma(apiRelay.relayUrl(db.url), { maxConnections: 5 });
  redis = new Redis(REDIS_URL);
  redisPrefix = `lwtest-pg-blackhole-${randomBytes(4).toString("hex")}`;
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
  dataDir = await mkdtemp(join(tmpdir(), "lastword-api-pg-blackhole-"));
  worker = await startWorkerProcess({
    databaseUrl: workerRelay.relayUrl(db.url),
    dataDir,
    secret,
    redisUrl: REDIS_URL,
    redisPrefix,
  });
  const tenant = await server.provisionTenant({
    name: "Blackhole",
    email: "blackhole@example.com",
    password: "blackhole-pass-1",
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

/** `call`'s answer and how long it took. */
async function timed<T>(call: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await call();
  return { answer, ms: performance.now() - started };
}

describe("Postgres blackholed (connections accepted, nothing answered)", () => {
  it("answers 503 DATABASE_UNAVAILABLE with Retry-After within the client timeouts, keeps serving cached reads, and recovers by itself", async () => {
    const created = await rest(server, { apiKey }, "POST", "/topics", { name: "orders", partitions: 1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const produce = (value: string) =>
      rest(server, { apiKey }, "POST", "/topics/orders/records", {
        records: [{ key: str("k"), value: str(value) }],
      });
    const before = await produce("before");
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const read = () => rest(server, { apiKey }, "GET", "/topics/orders/partitions/0/records?offset=0");
    expect((await read()).status).toBe(200);

    apiRelay.freeze();
    workerRelay.freeze();
    // Listing topics needs Postgres. The first statement meets a warm pool: its query timeout ends
    // the wait. Later ones may queue behind the pool's other stuck statements (the usage spool
    // retries meanwhile): the pool's wait, then one statement's timeout, bounds them.
    const waits: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const { answer, ms } = await timed(() => rest(server, { apiKey }, "GET", "/topics"));
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.body).toMatchObject({ code: "DATABASE_UNAVAILABLE", status: 503 });
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      waits.push(ms);
    }
    expect(waits[0]).toBeLessThan(DATABASE_TIMEOUTS.poolWaitMs);
    for (const ms of waits) expect(ms).toBeLessThan(DATABASE_TIMEOUTS.poolWaitMs + DATABASE_TIMEOUTS.queryMs);
    console.log(`503 after ${waits.map((ms) => Math.round(ms)).join(", ")} ms`);
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
