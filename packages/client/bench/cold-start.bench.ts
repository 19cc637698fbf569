/**
 * Issue 7 item 5: the seeds' feature-flag cold start. 12 partitions of KEYS keys × ~1.2 KiB
 * values, in two states — (a) compacted: 3 versions per key, 10 % of keys tombstoned, after passes
 * with min.cleanable.dirty.ratio 0.1; (b) dirty: 5 versions per key, no pass. For each state, the
 * cold start through the REST API (real HTTP on loopback) into a Map, via replay and via snapshot
 * (binary frames, the client's default; in (a) also NDJSON, and the transport alone), next to a raw read of
 * the same segment files in the same run.
 *
 *   flock -x /tmp/heavy.lock env BENCH_KEYS=340000 node --import tsx packages/client/bench/cold-start.bench.ts
 *   (default 60,000 keys; BENCH_PROFILE=<dir> writes a CPU profile per row)
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Session } from "node:inspector";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createApiServer, partitionForKey } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase } from "@lastword/db/testing";
import { partitionLogOpener, startWorker } from "@lastword/worker";
import { Redis } from "ioredis";
import { LastwordClient } from "../src/index";

const KEYS = Number(process.env.BENCH_KEYS ?? 60_000);
const PARTITIONS = 12;
const VALUE_BYTES = 1200;
const BATCH = 500;

function serve(handle: (req: Request) => Promise<Response>) {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = `http://${req.headers.host}${req.url}`;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    void handle(new Request(url, { method: req.method, headers })).then((response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return res.end();
      Readable.fromWeb(response.body as import("node:stream/web").ReadableStream).pipe(res);
    });
  });
}

/** With BENCH_PROFILE=<dir>: a CPU profile of each measured row (one process: worker, API and client). */
async function startProfile() {
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
  return {
    async stop(name: string) {
      const { profile } = (await post("Profiler.stop")) as { profile: unknown };
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
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
  const worker = await startWorker({
    databaseUrl: db.url,
    dataDir,
    secret,
    openLog: partitionLogOpener({ durability: "group-commit" }),
    logLevel: "silent",
    claimIntervalMs: 100,
  });
  const dp = new DataPlaneClient({ prisma: db.prisma, secret, ownerWaitMs: 15_000 });
  const server = createApiServer({
    prisma: db.prisma,
    redis,
    dataPlane: dp,
    publicUrl: "http://localhost",
    authSecret: randomBytes(32).toString("hex"),
    redisPrefix: `lwbench-${randomBytes(4).toString("hex")}`,
  });
  const tenant = await server.provisionTenant({
    name: "Bench",
    email: "b@example.com",
    password: "bench-pass-1",
  });
  const { key } = await server.createApiKey({ ...tenant, name: "bench" });
  const http = serve((req) => server.handleRest(req));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  // Reads go over real HTTP; setup calls (with bodies) go to the handler in-process.
  const client = new LastwordClient({ baseUrl, apiKey: key });
  const ndjson = new LastwordClient({ baseUrl, apiKey: key, streamFormat: "ndjson" });
  const admin = new LastwordClient({ baseUrl, apiKey: key, fetch: (req) => server.handleRest(req) });

  const rows: string[] = [];
  const seconds = new Map<string, number>();
  for (const state of ["compacted", "dirty"] as const) {
    const topic = `flags-${state}`;
    await admin.topics.create({
      name: topic,
      partitions: PARTITIONS,
      preset: "state-table",
      configs: { "min.cleanable.dirty.ratio": "0.1", "segment.bytes": String(1 << 20) },
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

    const measure = async (name: string, run: () => Promise<number>) => {
      const profile = await startProfile();
      const t0 = performance.now();
      const records = await run();
      const s = (performance.now() - t0) / 1000;
      await profile?.stop(`${state}-${name.replace(/\W+/g, "-")}`);
      seconds.set(`${state} ${name}`, s);
      rows.push(
        `| ${state} | ${name} | ${records.toLocaleString("en")} | ${s.toFixed(2)} | ${Math.round(records / s).toLocaleString("en")} | ${Math.round(logBytes / 1e6 / s)} |`,
      );
      console.error(rows.at(-1));
    };
    const live = state === "compacted" ? KEYS - KEYS / 10 : KEYS;
    const intoMap = async (via: "replay" | "snapshot", reader: LastwordClient) => {
      const { state: map } = await reader.replayToMap(topic, { via });
      if (map.size !== live) throw new Error(`${via}: ${map.size} keys, expected ${live}`);
      return via === "replay" ? stored : map.size;
    };
    await measure("raw read of the segment files", async () => {
      let bytes = 0;
      for (const f of files) bytes += readFileSync(f).length;
      if (bytes !== logBytes) throw new Error("files changed under the raw read");
      return stored;
    });
    await measure("replay → Map (REST binary)", () => intoMap("replay", client));
    await measure("snapshot → Map (REST binary)", () => intoMap("snapshot", client));
    if (state === "compacted") {
      // The NDJSON answer (what curl reads) once, for comparison; the dirty log would take minutes.
      await measure("replay → Map (REST NDJSON)", () => intoMap("replay", ndjson));
      // The transport alone: the same binary replay over HTTP, its bytes counted and dropped.
      await measure("replay bytes only, no Map (REST binary)", async () => {
        const response = await fetch(`${baseUrl}/api/v1/topics/${topic}/records/stream`, {
          headers: { authorization: `Bearer ${key}`, accept: "application/vnd.lastword.frames" },
        });
        let bytes = 0;
        for await (const chunk of response.body!) bytes += chunk.byteLength;
        if (bytes < logBytes / 2) throw new Error(`only ${bytes} bytes`);
        return stored;
      });
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
      `snapshot (a) / replay (a) time: ${ratio("compacted snapshot → Map (REST binary)", "compacted replay → Map (REST binary)")}`,
  );
  console.log(`keys: ${KEYS} × ${VALUE_BYTES} B values, ${PARTITIONS} partitions`);
  console.log("| state | path | records | seconds | records/s | MB/s (of log on disk) |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);

  http.close();
  dp.close();
  await worker.stop();
  redis.disconnect();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
