/**
 * The seeds' feature-flag cold start. 12 partitions of KEYS keys × ~1.2 KiB
 * values, in two states — (a) compacted: 3 versions per key, 10 % of keys tombstoned, after passes
 * with min.cleanable.dirty.ratio 0.1; (b) dirty: 5 versions per key, no pass. For each state, the
 * cold start through the REST API (real HTTP on loopback) into a Map, via replay and via snapshot
 * (binary frames, the client's default; in (a) also NDJSON, and the transport alone), next to a raw read of
 * the same segment files in the same run. Three processes, as in production: the worker
 * (`apps/worker/src/main.ts`), the web (bench/web-process.ts: the API's REST handler on HTTP) and
 * this one, the program doing the cold start (its client; also the setup and the raw read).
 *
 *   flock -x /tmp/heavy.lock env BENCH_KEYS=340000 node --import tsx packages/client/bench/cold-start.bench.ts
 *   (default 60,000 keys; BENCH_PROFILE=<dir> writes a CPU profile per row)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createApiServer, partitionForKey } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { LastwordClient } from "../src/index";

const KEYS = Number(process.env.BENCH_KEYS ?? 60_000);
const PARTITIONS = 12;
const VALUE_BYTES = 1200;
const BATCH = 500;
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * A child process of the bench (the worker: `apps/worker/src/main.ts`; the web: bench/web-process.ts),
 * under BENCH_PROFILE with the profiler hook loaded; resolved with the first stdout line `ready`
 * accepts.
 */
function spawnProcess<T>(
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

/** With BENCH_PROFILE=<dir>: a CPU profile of each measured row, this process's (the client) and each child's. */
async function startProfile(children: Record<string, ChildProcess>) {
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

function logFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...logFiles(path));
    else if (entry.name.endsWith(".log")) out.push(path);
  }
  return out;
}

async function main() {
  const db = await createTestDatabase("lastword_bench_cold_start");
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const secret = randomBytes(16).toString("hex");
  const dataDir = join(tmpdir(), `lastword-cold-start-${randomBytes(4).toString("hex")}`);
  const redisPrefix = `lwbench-${randomBytes(4).toString("hex")}`;
  const { child: worker } = await spawnProcess(
    "apps/worker/src/main.ts",
    {
      DATABASE_URL: db.url,
      LASTWORD_DATA_DIR: dataDir,
      LASTWORD_INTERNAL_SECRET: secret,
      REDIS_PREFIX: `${redisPrefix}-worker`,
      LOG_LEVEL: "info",
    },
    (line) => (line.includes('"worker ready"') ? true : undefined),
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
      REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
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
  const { key } = await server.createApiKey({ ...tenant, name: "bench" });
  const baseUrl = `http://127.0.0.1:${webPort}`;
  // Reads: the client process over real HTTP to the web process; setup: the handler in-process.
  const { child: client } = await spawnProcess(
    "packages/client/bench/client-process.ts",
    { BENCH_BASE_URL: baseUrl, BENCH_API_KEY: key },
    (line) => (line === "ready" ? true : undefined),
  );
  const admin = new LastwordClient({ baseUrl, apiKey: key, fetch: (req) => server.handleRest(req) });

  /** One task of the client process (client-process.ts): what it read, and its own timing. */
  const task = (message: object) =>
    new Promise<{ keys?: number; bytes?: number; seconds: number }>((resolve, reject) => {
      client.once("message", (answer: { error?: string; keys?: number; bytes?: number; seconds: number }) =>
        answer.error ? reject(new Error(answer.error)) : resolve(answer),
      );
      client.send(message);
    });
  const rows: string[] = [];
  const seconds = new Map<string, number>();
  for (const state of ["compacted", "dirty"] as const) {
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
    const files = logFiles(join(dataDir, tenant.organizationId, topicRow.id));
    const logBytes = files.reduce((n, f) => n + statSync(f).size, 0);
    const stored = (await Promise.all(parts.map((p) => dp.segments({ partitionId: p.id })))).reduce(
      (n, s) => n + s.segments.reduce((m, seg) => m + seg.records, 0),
      0,
    );
    console.error(
      `${state}: wrote ${KEYS * versions} records in ${wroteS.toFixed(1)} s; ${stored} stored, ${(logBytes / 1e6).toFixed(0)} MB`,
    );

    /** A row: `run` answers the records read and, when timed elsewhere (the client process), its seconds. */
    const measure = async (name: string, run: () => Promise<{ records: number; seconds?: number }>) => {
      const profile = await startProfile({ client, web, worker });
      const t0 = performance.now();
      const { records, seconds: timed } = await run();
      const s = timed ?? (performance.now() - t0) / 1000;
      await profile?.stop(`${state}-${name.replace(/\W+/g, "-")}`);
      seconds.set(`${state} ${name}`, s);
      rows.push(
        `| ${state} | ${name} | ${records.toLocaleString("en")} | ${s.toFixed(2)} | ${Math.round(records / s).toLocaleString("en")} | ${Math.round(logBytes / 1e6 / s)} |`,
      );
      console.error(rows.at(-1));
    };
    const live = state === "compacted" ? KEYS - KEYS / 10 : KEYS;
    const intoMap = async (via: "replay" | "snapshot", format: "frames" | "ndjson") => {
      const { keys, seconds } = await task({ run: "map", topic, via, format });
      if (keys !== live) throw new Error(`${via}: ${keys} keys, expected ${live}`);
      return { records: via === "replay" ? stored : keys, seconds };
    };
    if (state === "compacted") {
      // The web and the worker are long-running processes: the first request they serve (database
      // connections, JIT) is not part of a client's cold start. The client process stays cold.
      const response = await fetch(`${baseUrl}/api/v1/topics/${topic}/records/stream`, {
        headers: { authorization: `Bearer ${key}`, accept: "application/vnd.lastword.frames" },
      });
      await response.arrayBuffer();
    }
    await measure("raw read of the segment files", async () => {
      let bytes = 0;
      for (const f of files) bytes += readFileSync(f).length;
      if (bytes !== logBytes) throw new Error("files changed under the raw read");
      return { records: stored };
    });
    await measure("replay → Map (REST binary)", () => intoMap("replay", "frames"));
    await measure("snapshot → Map (REST binary)", () => intoMap("snapshot", "frames"));
    if (state === "compacted") {
      // The NDJSON answer (what curl reads) once, for comparison; the dirty log would take minutes.
      await measure("replay → Map (REST NDJSON)", () => intoMap("replay", "ndjson"));
      // The transport alone: the same binary replay over HTTP, its bytes counted and dropped.
      await measure("replay bytes only, no Map (REST binary)", async () => {
        const { bytes, seconds } = await task({ run: "bytes", topic });
        if (bytes! < logBytes / 2) throw new Error(`only ${bytes} bytes`);
        return { records: stored, seconds };
      });
      // The floor under every REST row: the same bytes from memory over one loopback hop, with no
      // product code on either side (bench/floor-server.ts), read by the client process.
      const { child: floor } = await spawnProcess("packages/client/bench/floor-server.ts", {}, (line) =>
        line === "ready" ? true : undefined,
      );
      floor.send({ load: files });
      const [ports] = (await once(floor, "message")) as [{ http: number; tcp: number; bytes: number }];
      if (ports.bytes !== logBytes) throw new Error("files changed under the floor server");
      const floorRows = [
        ["tcp", "floor: the same bytes, one bare TCP hop, no HTTP"],
        ["http", "floor: the same bytes, one bare HTTP hop (node http)"],
        ["fetch", "floor: the same bytes, one bare HTTP hop (fetch)"],
      ] as const;
      for (const [transport, name] of floorRows) {
        await measure(name, async () => {
          const port = transport === "tcp" ? ports.tcp : ports.http;
          const { bytes, seconds } = await task({ run: "floor", transport, port });
          if (bytes !== logBytes) throw new Error(`${name}: ${bytes} of ${logBytes} bytes`);
          return { records: stored, seconds };
        });
      }
      floor.kill("SIGTERM");
      await once(floor, "exit");
    }
  }
  const ratio = (a: string, b: string) => (seconds.get(a)! / seconds.get(b)!).toFixed(3);
  console.log(
    `${new Date().toISOString()}; ${cpus().length} × ${cpus()[0]?.model}; node ${process.version}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    `replay (a) throughput / raw (a): ${ratio("compacted raw read of the segment files", "compacted replay → Map (REST binary)")}; ` +
      `replay (b) / snapshot (b) time: ${ratio("dirty replay → Map (REST binary)", "dirty snapshot → Map (REST binary)")}; ` +
      `snapshot (a) / replay (a) time: ${ratio("compacted snapshot → Map (REST binary)", "compacted replay → Map (REST binary)")}; ` +
      `floor (a) throughput / raw (a): TCP ${ratio("compacted raw read of the segment files", "compacted floor: the same bytes, one bare TCP hop, no HTTP")}, ` +
      `node http ${ratio("compacted raw read of the segment files", "compacted floor: the same bytes, one bare HTTP hop (node http)")}, ` +
      `fetch ${ratio("compacted raw read of the segment files", "compacted floor: the same bytes, one bare HTTP hop (fetch)")}`,
  );
  console.log(`keys: ${KEYS} × ${VALUE_BYTES} B values, ${PARTITIONS} partitions`);
  console.log("| state | path | records | seconds | records/s | MB/s (of log on disk) |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);

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
}

await main();
