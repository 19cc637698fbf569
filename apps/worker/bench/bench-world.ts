import { createApiServer } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { partitionLogOpener } from "../src/hosting/log-opener";
import { type RunningWorker, startWorker, type WorkerConfig } from "../src/worker";

/**
 * A bench's own database (dropped after `run`) and a data-plane client over it that signs with
 * `secret`, the secret the bench's workers are started with.
 */
export async function withBenchWorld<T>(
  options: { name: string; secret: string; ownerWaitMs: number },
  run: (db: TestDatabase, client: DataPlaneClient) => Promise<T>,
): Promise<T> {
  const db = await createTestDatabase(`lastword_bench_${options.name}`);
  const client = new DataPlaneClient({
    prisma: db.prisma,
    secret: options.secret,
    ownerWaitMs: options.ownerWaitMs,
  });
  try {
    return await run(db, client);
  } finally {
    client.close();
    await db.drop();
  }
}

export interface BenchRestTenant {
  /** The Redis prefix of the API's keys; a bench's workers may schedule under it too (close deletes them all). */
  redisPrefix: string;
  /** A request to the REST API (`/api/v1` + path) with the tenant's key: JSON for a string body, binary frames for a Buffer. */
  call(method: string, path: string, body?: string | Buffer): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The web's REST handler in this process (what `apps/web` mounts at /api/v1) with one tenant and
 * an API key of `scopes`, over the bench database, Redis and the data plane. Its quota is lifted:
 * the default 64 MiB/s produce-bytes quota would throttle the bench itself.
 */
export async function benchRestTenant(options: {
  db: TestDatabase;
  client: DataPlaneClient;
  tag: string;
  scopes?: Parameters<ReturnType<typeof createApiServer>["createApiKey"]>[0]["scopes"];
}): Promise<BenchRestTenant> {
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const redisPrefix = `lastword-bench-${options.tag}-${process.pid}`;
  const server = createApiServer({
    prisma: options.db.prisma,
    redis,
    dataPlane: options.client,
    publicUrl: "http://localhost:3999",
    authSecret: "bench-auth-secret-bench-auth-secret",
    redisPrefix,
  });
  const tenant = await server.provisionTenant({
    name: "Bench",
    email: "bench@example.com",
    password: "bench-pass-1",
  });
  await options.db.prisma.quota.create({
    data: {
      organizationId: tenant.organizationId,
      maxPartitions: 1000,
      maxStoredBytes: 1n << 50n,
      produceBytesPerSecond: 2_000_000_000,
      requestsPerSecond: 100_000,
    },
  });
  const { key } = await server.createApiKey({
    ...tenant,
    name: "bench",
    ...(options.scopes && { scopes: options.scopes }),
  });
  return {
    redisPrefix,
    call: (method, path, body) =>
      server.handleRest(
        new Request(`http://localhost:3999/api/v1${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": typeof body === "string" ? "application/json" : "application/vnd.lastword.frames",
          },
          body,
        }),
      ),
    async close() {
      const keys = await redis.keys(`${redisPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

/** A quiet worker in this process over the bench database, signing with `secret`; `extra` adds to its config. */
export function startBenchWorker(
  db: TestDatabase,
  options: { dataDir: string; secret: string },
  extra: Partial<WorkerConfig> = {},
): Promise<RunningWorker> {
  return startWorker({
    databaseUrl: db.url,
    dataDir: options.dataDir,
    secret: options.secret,
    openLog: partitionLogOpener(),
    logLevel: "silent",
    ...extra,
  });
}
