/**
 * The seeds' feature-flag cold start, as every cold-start bench sets it up (this package's REST one,
 * the worker's Kafka one): a worker process, a web process serving the REST API, a client process
 * holding only `@lastword/client`, one tenant with an API key, and topics of 12 partitions of
 * BENCH_KEYS keys × ~1.2 KiB values in two states — (a) compacted: 3 versions per key, 10 % of keys
 * tombstoned, after a pass on every partition with min.cleanable.dirty.ratio 0.1; (b) dirty:
 * 5 versions per key, no pass.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createApiServer, partitionForKey, type Scope } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { LastwordClient } from "../src/index";

export const KEYS = Number(process.env.BENCH_KEYS ?? 60_000);
export const PARTITIONS = 12;
export const VALUE_BYTES = 1200;
const BATCH = 500;
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export type FlagStateName = "compacted" | "dirty";

/**
 * A child process of a bench, started with tsx from the repository root (under BENCH_PROFILE with
 * the profiler hook of bench/profile-hook.ts loaded); resolved with the first stdout line `ready`
 * accepts.
 */
export function spawnProcess<T>(
  entry: string,
  env: Record<string, string>,
  ready: (line: string) => T | undefined,
): Promise<{ child: ChildProcess; value: T }> {
  const profiled = process.env.BENCH_PROFILE !== undefined;
  const hook = profiled ? ["--import", "./packages/client/bench/profile-hook.ts"] : [];
  const child = spawn(process.execPath, ["--import", "tsx", ...hook, entry], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      const value = ready(line);
      if (value !== undefined) resolve({ child, value });
    });
    child.once("exit", (code) => reject(new Error(`${entry} exited with ${code}`)));
  });
}

/** Asks a profiled child to start, or to stop and write its profile; resolves when it has. */
function childProfile(child: ChildProcess, message: { start: true } | { stop: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once("message", (answer: { error?: string }) =>
      answer.error ? reject(new Error(answer.error)) : resolve(),
    );
    child.send(message);
  });
}

/** With BENCH_PROFILE=<dir>: a CPU profile of one measured row, this process's and each child's (`<name>.<role>.cpuprofile`). */
export async function startProfile(children: Record<string, ChildProcess>) {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return null;
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post("Profiler.enable");
  await new Promise((resolve) => session.post("Profiler.setSamplingInterval", { interval: 100 }, resolve));
  await post("Profiler.start");
  for (const child of Object.values(children)) await childProfile(child, { start: true });
  return {
    async stop(name: string) {
      const { profile } = (await post("Profiler.stop")) as { profile: unknown };
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
      for (const [role, child] of Object.entries(children)) {
        await childProfile(child, { stop: join(dir, `${name}.${role}.cpuprofile`) });
      }
    },
  };
}

/** Every segment file (`*.log`) under `dir`. */
export function logFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...logFiles(path));
    else if (entry.name.endsWith(".log")) out.push(path);
  }
  return out;
}

/** What a task of the client process (bench/client-process.ts) answers, timed there. */
export type ClientAnswer = { keys?: number; bytes?: number; seconds: number };

export type FlagStack = Awaited<ReturnType<typeof startFlagStack>>;

/**
 * The three processes and the tenant. `workerEnv` adds to the worker's environment; `scopes` are
 * the API key's (the default key's when unset). The worker's Kafka listener binds a free loopback
 * port (`kafka` is what its "worker ready" line advertises).
 */
export async function startFlagStack(
  options: { name: string; workerEnv?: Record<string, string>; scopes?: Scope[] } = { name: "cold_start" },
) {
  const db: TestDatabase = await createTestDatabase(`lastword_bench_${options.name}`);
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = new Redis(redisUrl);
  const secret = randomBytes(16).toString("hex");
  const dataDir = join(tmpdir(), `lastword-${options.name}-${randomBytes(4).toString("hex")}`);
  const redisPrefix = `lwbench-${randomBytes(4).toString("hex")}`;
  const { child: worker, value: ready } = await spawnProcess(
    "apps/worker/src/main.ts",
    {
      DATABASE_URL: db.url,
      LASTWORD_DATA_DIR: dataDir,
      LASTWORD_INTERNAL_SECRET: secret,
      REDIS_PREFIX: `${redisPrefix}-worker`,
      LOG_LEVEL: "info",
      ...options.workerEnv,
    },
    (line) =>
      line.includes('"worker ready"')
        ? (JSON.parse(line) as { kafka: { host: string; port: number } | null })
        : undefined,
  );
  const dp = new DataPlaneClient({ prisma: db.prisma, secret, ownerWaitMs: 15_000 });
  const authSecret = randomBytes(32).toString("hex");
  // This process's API server does the setup (tenant, key, topics); the measured reads go to the
  // web process's, over HTTP. Both are stateless over the same Postgres and Redis.
  const server = createApiServer({
    prisma: db.prisma,
    redis,
    dataPlane: dp,
    publicUrl: "http://localhost",
    authSecret,
    redisPrefix,
  });
  const { child: web, value: webPort } = await spawnProcess(
    "packages/client/bench/web-process.ts",
    {
      DATABASE_URL: db.url,
      REDIS_URL: redisUrl,
      BENCH_SECRET: secret,
      BENCH_AUTH_SECRET: authSecret,
      BENCH_REDIS_PREFIX: redisPrefix,
    },
    (line) =>
      line.startsWith('{"listening"') ? (JSON.parse(line) as { listening: number }).listening : undefined,
  );
  const tenant = await server.provisionTenant({
    name: "Bench",
    email: "b@example.com",
    password: "bench-pass-1",
  });
  const apiKey = await server.createApiKey({
    ...tenant,
    name: "bench",
    ...(options.scopes ? { scopes: options.scopes } : {}),
  });
  const baseUrl = `http://127.0.0.1:${webPort}`;
  // Reads: the client process over real HTTP to the web process; setup: the handler in-process.
  const { child: client } = await spawnProcess(
    "packages/client/bench/client-process.ts",
    { BENCH_BASE_URL: baseUrl, BENCH_API_KEY: apiKey.key },
    (line) => (line === "ready" ? true : undefined),
  );
  const admin = new LastwordClient({ baseUrl, apiKey: apiKey.key, fetch: (req) => server.handleRest(req) });

  /** One task of the client process (client-process.ts): what it read, and its own timing. */
  const task = (message: object) =>
    new Promise<ClientAnswer>((resolve, reject) => {
      client.once("message", (answer: ClientAnswer & { error?: string }) =>
        answer.error ? reject(new Error(answer.error)) : resolve(answer),
      );
      client.send(message);
    });

  return {
    db,
    dp,
    server,
    tenant,
    apiKey,
    baseUrl,
    admin,
    dataDir,
    task,
    processes: { client, web, worker },
    /** The worker's Kafka listener as advertised. */
    kafka: ready.kafka,
    async close(): Promise<void> {
      dp.close();
      for (const child of [client, web, worker]) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      const left = await redis.keys(`${redisPrefix}*`);
      if (left.length) await redis.del(...left);
      redis.disconnect();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A topic in one of the two states, written through the data plane, and what is on disk. */
export type FlagState = {
  state: FlagStateName;
  topic: string;
  /** The segment files of its partitions, and their total bytes. */
  files: string[];
  logBytes: number;
  /** Records stored (what a replay reads), and the keys a cold start must end with. */
  stored: number;
  live: number;
};

/** Creates `flags-<state>` and writes it; in (a) waits for the pass on every partition. */
export async function writeFlagState(stack: FlagStack, state: FlagStateName): Promise<FlagState> {
  const { admin, db, dp } = stack;
  const topic = `flags-${state}`;
  await admin.topics.create({
    name: topic,
    partitions: PARTITIONS,
    preset: "state-table",
    configs: {
      "min.cleanable.dirty.ratio": "0.1",
      "segment.bytes": String(1 << 20),
      // The worker process schedules passes itself: a day's lag keeps the dirty log unpassed.
      ...(state === "dirty" ? { "min.compaction.lag.ms": String(86_400_000) } : {}),
      // A pass's replaced segments are unlinked at once, not a minute later in a measured row.
      ...(state === "compacted" ? { "file.delete.delay.ms": "0" } : {}),
    },
  });
  const topicRow = await db.prisma.topic.findFirstOrThrow({ where: { name: topic } });
  const parts = await db.prisma.partition.findMany({
    where: { topicId: topicRow.id },
    orderBy: { index: "asc" },
  });
  const versions = state === "compacted" ? 3 : 5;
  const started = performance.now();
  const value = randomBytes(VALUE_BYTES / 2).toString("hex");
  const perPartition: { key: Buffer; value: Buffer | null }[][] = parts.map(() => []);
  const flush = async (p: number) => {
    const records = perPartition[p]!.splice(0);
    if (records.length) await dp.produce({ partitionId: parts[p]!.id, records });
  };
  for (let v = 0; v < versions; v++) {
    for (let k = 0; k < KEYS; k++) {
      const keyBytes = Buffer.from(`flag-${k}`);
      const p = partitionForKey(keyBytes, PARTITIONS);
      const tombstone = state === "compacted" && v === versions - 1 && k % 10 === 0;
      perPartition[p]!.push({ key: keyBytes, value: tombstone ? null : Buffer.from(`${v}:${value}`) });
      if (perPartition[p]!.length >= BATCH) await flush(p);
    }
    await Promise.all(parts.map((_, p) => flush(p)));
  }
  const wroteS = (performance.now() - started) / 1000;
  if (state === "compacted") {
    // Passes run on the worker's queue: wait for each, so none competes with the measurements.
    const requested = Date.now();
    for (const p of parts) await dp.requestClean({ partitionId: p.id });
    for (const p of parts) {
      for (;;) {
        const last = (await dp.segments({ partitionId: p.id })).cleaner?.lastCleanAt;
        if (last != null && new Date(last).getTime() >= requested) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
  const files = logFiles(join(stack.dataDir, stack.tenant.organizationId, topicRow.id));
  const logBytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const stored = (await Promise.all(parts.map((p) => dp.segments({ partitionId: p.id })))).reduce(
    (n, s) => n + s.segments.reduce((m, seg) => m + seg.records, 0),
    0,
  );
  console.error(
    `${state}: wrote ${KEYS * versions} records in ${wroteS.toFixed(1)} s; ${stored} stored, ${(logBytes / 1e6).toFixed(0)} MB`,
  );
  const live = state === "compacted" ? KEYS - Math.ceil(KEYS / 10) : KEYS;
  return { state, topic, files, logBytes, stored, live };
}
