import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createApiServer } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// `npm run dev` with no environment: web and worker each fall back to their development secrets,
// which must be the same one, or every data-plane call is refused. Both run as processes from
// their own entry points (the web's REST route without a Next build), with only what keeps this
// test off the developer's database, Redis keys and data dir.
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const redisPrefix = `lwtest-devsecret-${randomBytes(4).toString("hex")}`;
let db: TestDatabase;
let dataDir: string;
let baseUrl: string;
let apiKey: string;
const children: ChildProcess[] = [];

/** The environment of a developer who set nothing: no secrets, NODE_ENV as `next dev` sets it. */
function devEnvironment(): NodeJS.ProcessEnv {
  const { LASTWORD_INTERNAL_SECRET: _, BETTER_AUTH_SECRET: __, ...inherited } = process.env;
  return {
    ...inherited,
    NODE_ENV: "development",
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: redisPrefix,
    LASTWORD_DATA_DIR: dataDir,
    LOG_LEVEL: "info",
  };
}

/** Starts `node --import tsx <entry>` and resolves with the first stdout line `ready` accepts. */
function start<T>(entry: string, ready: (line: Record<string, unknown>) => T | undefined): Promise<T> {
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: repoRoot,
    env: devEnvironment(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const value = ready(JSON.parse(line) as Record<string, unknown>);
      if (value !== undefined) resolve(value);
    });
    child.once("exit", (code) => reject(new Error(`${entry} exited with ${code} before it was ready`)));
  });
}

beforeAll(async () => {
  db = await createTestDatabase("lastword_test_devsecret");
  dataDir = await mkdtemp(join(tmpdir(), "lastword-devsecret-"));
  // Provisioning is an operator's step (the CLI's): it writes Postgres and never calls a worker.
  const redis = new Redis(redisUrl);
  try {
    const operator = createApiServer({
      prisma: db.prisma,
      redis,
      dataPlane: new DataPlaneClient({ prisma: db.prisma, secret: "provisioning-calls-no-worker" }),
      publicUrl: "http://localhost:3000",
      authSecret: randomBytes(32).toString("hex"),
      redisPrefix,
    });
    const tenant = await operator.provisionTenant({
      name: "Dev",
      email: "dev@example.com",
      password: "dev-secret-pass-1",
    });
    apiKey = (await operator.createApiKey({ ...tenant, name: "dev" })).key;
  } finally {
    redis.disconnect();
  }
  const [port] = await Promise.all([
    start("test/fixtures/web-rest-process.ts", (line) => line.listening as number | undefined),
    start("apps/worker/src/main.ts", (line) => (line.msg === "worker ready" ? true : undefined)),
  ]);
  baseUrl = `http://127.0.0.1:${port}/api/v1`;
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${redisPrefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await db?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("npm run dev with no environment", () => {
  it("produces a record through web and worker and reads it back", async () => {
    const created = await call("POST", "/topics", { name: "dev", partitions: 1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const produced = await call("POST", "/topics/dev/records", {
      records: [{ key: { type: "string", data: "user-1" }, value: { type: "string", data: "hello" } }],
    });
    expect(produced.status, JSON.stringify(produced.body)).toBe(200);
    expect(produced.body.results).toEqual([{ partition: 0, offset: 0 }]);
    const read = await call("GET", "/topics/dev/partitions/0/records?offset=0");
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.records).toMatchObject([{ offset: 0, value: { type: "string", data: "hello" } }]);
  });
});
