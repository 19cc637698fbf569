// The noisy-neighbour bench (issue 27): tenant A produces and fetches at a steady, modest rate on a
// worker (its own process, as production runs it) while tenant B, in a process of its own
// (noisy-flood.ts), floods the same worker at its quota with compression bombs, big compressed
// batches, connections and large fetches. A's produce and fetch latency is measured alone and then
// under the flood, in the same run; with it the worker's event-loop delay (its own
// monitorEventLoopDelay, from /metrics), its full garbage collections, the leases it lost, and what
// it refused or throttled B.
// Then the floor: A again while B is replaced by a pure CPU burner using the cores as B's flood did
// (its process and the worker's extra CPU for it), which sends the worker nothing — what sharing
// the machine's cores alone costs A.
// Knobs: BENCH_NOISY_SECONDS (per phase, default 20), BENCH_NOISY_PRODUCERS (B's, 4),
// BENCH_NOISY_CPU_PROFILE (a directory for the worker's CPU profile), BENCH_NOISY_B_REQUEST_MS (B's
// requestTimeMsPerSecond, default the default quota's).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DEFAULT_QUOTA } from "@lastword/api/tenant-quota";
import { createTestDatabase } from "@lastword/db/testing";
import { encodeRecordBatch } from "@lastword/record-batch";
import { CLIENT_SCOPES, createKafkaKey, fetchBody, metricSample, RawKafka } from "../test/kafka-client";
import { createNamedTopic } from "../test/test-topics";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const SECONDS = Number(process.env.BENCH_NOISY_SECONDS ?? 20);
const B_PRODUCERS = Number(process.env.BENCH_NOISY_PRODUCERS ?? 4);
/** A's pace: one produce and one fetch every this many ms (a steady, modest client). */
const A_INTERVAL_MS = 50;
const ORG_A = "org_noisy_a";
const ORG_B = "org_noisy_b";
/** B's own connection quota here, below what it tries to hold. */
const B_MAX_CONNECTIONS = 200;
const B_REQUEST_MS = Number(process.env.BENCH_NOISY_B_REQUEST_MS ?? DEFAULT_QUOTA.requestTimeMsPerSecond);

interface Worker {
  child: ChildProcess;
  address: string;
  kafka: { host: string; port: number };
  leasesLost(): number;
}

function spawnWorker(env: Record<string, string>): Promise<Worker> {
  // BENCH_NOISY_CPU_PROFILE=<dir>: the worker writes a V8 CPU profile there (what its loop spent time on).
  const profile = process.env.BENCH_NOISY_CPU_PROFILE;
  const flags = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(process.execPath, [...flags, "--import", "tsx", "apps/worker/src/main.ts"], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let lost = 0;
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const entry = JSON.parse(line) as {
        msg?: string;
        reason?: string;
        address?: string;
        kafka?: Worker["kafka"];
      };
      if (entry.msg === "partition closed" && entry.reason === "lease lost") lost++;
      if (entry.msg === "worker ready") {
        resolve({ child, address: entry.address!, kafka: entry.kafka!, leasesLost: () => lost });
      }
    });
    child.once("close", (code) => reject(new Error(`the worker exited with ${code} before it was ready`)));
  });
}

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

/** CPU seconds (user + system, every thread) a process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Runs `bench/<file>` with its JSON config in a process of its own; resolves to its last stdout line. */
function benchProcess(file: string, config: object): { done: Promise<string>; pid: number } {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", `apps/worker/bench/${file}`, JSON.stringify(config)],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<string>((resolve) => child.once("close", () => resolve(out.trim())));
  return { done, pid: child.pid! };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface PhaseResult {
  produce: number[];
  fetch: number[];
  errors: number;
  loopP99Ms: number;
  loopMaxMs: number;
  /** Full collections on the worker's event-loop thread during the phase, and the ms they held it. */
  majorGcs: number;
  majorGcMs: number;
}

/** The worker's full collections so far (lastword_gc_total / _seconds_total, kind major). */
function majorGc(body: string): { count: number; ms: number } {
  return {
    count: metricSample(body, 'lastword_gc_total{kind="major"}'),
    ms: metricSample(body, 'lastword_gc_seconds_total{kind="major"}') * 1000,
  };
}

async function scrape(worker: Worker): Promise<string> {
  return (await fetch(`${worker.address}/metrics`)).text();
}

/** A for `seconds`: one produce (1 record of 1 KiB, acks=-1) and one fetch (maxWait 0) per interval. */
async function tenantA(
  worker: Worker,
  key: { id: string; secret: string },
  seconds: number,
): Promise<PhaseResult> {
  const gcBefore = majorGc(await scrape(worker)); // also starts the event-loop interval
  const producer = await RawKafka.login(worker.kafka, key);
  const consumer = await RawKafka.login(worker.kafka, key);
  const result: PhaseResult = {
    produce: [],
    fetch: [],
    errors: 0,
    loopP99Ms: 0,
    loopMaxMs: 0,
    majorGcs: 0,
    majorGcMs: 0,
  };
  const until = performance.now() + seconds * 1000;
  const value = randomBytes(1024);
  for (let i = 0; performance.now() < until; i++) {
    const tick = performance.now();
    const records = encodeRecordBatch([{ key: Buffer.from(`a${i}`), value }], {
      baseOffset: 0,
      appendTimeMs: 1,
    });
    const produced = await producer.call(0, 8, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 30_000,
      topicData: [{ name: "steady", partitionData: [{ index: i % 4, records }] }],
    });
    result.produce.push(performance.now() - tick);
    if (produced.responses[0]!.partitionResponses[0]!.errorCode !== 0) result.errors++;
    const fetchStart = performance.now();
    await consumer.request(
      1,
      11,
      fetchBody("steady", i % 4, Math.max(0, Math.floor(i / 4) - 5), { partitionMaxBytes: 64 << 10 }),
      0,
    );
    result.fetch.push(performance.now() - fetchStart);
    const rest = A_INTERVAL_MS - (performance.now() - tick);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
  producer.close();
  consumer.close();
  const body = await scrape(worker);
  result.loopP99Ms = metricSample(body, 'lastword_event_loop_delay_seconds{quantile="0.99"}') * 1000;
  result.loopMaxMs = metricSample(body, 'lastword_event_loop_delay_seconds{quantile="1"}') * 1000;
  const gcAfter = majorGc(body);
  result.majorGcs = gcAfter.count - gcBefore.count;
  result.majorGcMs = gcAfter.ms - gcBefore.ms;
  return result;
}

function row(label: string, r: PhaseResult): string {
  const p = (xs: number[], q: number) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      q,
    ).toFixed(1);
  return `| ${label} | ${p(r.produce, 50)} / ${p(r.produce, 99)} | ${p(r.fetch, 50)} / ${p(r.fetch, 99)} | ${r.loopP99Ms.toFixed(1)} / ${r.loopMaxMs.toFixed(1)} | ${r.majorGcs} / ${r.majorGcMs.toFixed(0)} | ${r.produce.length} (${r.errors} errors) |`;
}

export async function noisyNeighbourBenchmark(): Promise<void> {
  const db = await createTestDatabase("lastword_bench_noisy");
  const dataDir = await mkdtemp(join(tmpdir(), "lastword-bench-noisy-"));
  let worker: Worker | null = null;
  try {
    await createNamedTopic(db.prisma, ORG_A, "steady", 4);
    await createNamedTopic(db.prisma, ORG_B, "flood", 8);
    await db.prisma.quota.create({
      data: {
        organizationId: ORG_B,
        ...DEFAULT_QUOTA,
        maxConnectionsPerWorker: B_MAX_CONNECTIONS,
        requestTimeMsPerSecond: B_REQUEST_MS,
      },
    });
    const keyA = await createKafkaKey(db.prisma, ORG_A, CLIENT_SCOPES, { scram: false });
    const keyB = await createKafkaKey(db.prisma, ORG_B, CLIENT_SCOPES, { scram: false });
    worker = await spawnWorker({
      DATABASE_URL: db.url,
      LASTWORD_DATA_DIR: dataDir,
      WORKER_SCHEDULING: "off",
      REDIS_PREFIX: `lastword-bench-noisy-${process.pid}`,
    });
    const started = worker;
    // Every partition hosted before anything is measured.
    for (;;) {
      const hosted = await db.prisma.partition.count({ where: { ownerWorkerId: { not: null } } });
      if (hosted === 12) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(1))
        .join(" ");
    const loadBefore = load();
    const workerPid = started.child.pid!;
    let mark = { at: performance.now(), cpu: cpuSeconds(workerPid) };
    /** The worker's CPU (cores) since the last call. */
    const workerCores = () => {
      const now = { at: performance.now(), cpu: cpuSeconds(workerPid) };
      const cores = (now.cpu - mark.cpu) / ((now.at - mark.at) / 1000);
      mark = now;
      return cores;
    };
    const idle = await tenantA(started, keyA, SECONDS);
    const workerIdleCores = workerCores();
    const floodStarted = performance.now();
    const flood = benchProcess("noisy-flood.ts", {
      ...started.kafka,
      key: keyB,
      topic: "flood",
      partitions: 8,
      seconds: SECONDS + 5,
      producers: B_PRODUCERS,
      fetchers: 2,
      connections: B_MAX_CONNECTIONS * 2,
      anonymous: 600,
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const noisy = await tenantA(started, keyA, SECONDS);
    const floodReport = await flood.done;
    const floodWall = (performance.now() - floodStarted) / 1000;
    const workerFloodCores = workerCores();
    const floodCores = (JSON.parse(floodReport) as { cpuSeconds: number }).cpuSeconds / floodWall;
    // B's CPU: its own process, and what the worker used beyond A's idle phase while it flooded.
    const bCores = floodCores + Math.max(0, workerFloodCores - workerIdleCores);
    const burners = Math.max(1, Math.ceil(bCores));
    const burning = Array.from({ length: burners }, () =>
      benchProcess("noisy-burner.ts", { duty: Math.min(1, bCores / burners), seconds: SECONDS + 2 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const burnt = await tenantA(started, keyA, SECONDS);
    const burnerCpu = (await Promise.all(burning.map((b) => b.done))).reduce(
      (sum, line) => sum + (JSON.parse(line) as { cpuSeconds: number }).cpuSeconds,
      0,
    );
    const body = await scrape(started);
    const refusals = body
      .split("\n")
      .filter((l) => l.includes(`tenant="${ORG_B}"`) && /refused|throttle_seconds/.test(l))
      .map((l) => l.replace(/^lastword_kafka_/, ""));
    const anonymousRefused = body
      .split("\n")
      .filter((l) => l.startsWith("lastword_kafka_refused_connections_total") && l.includes('tenant=""'));
    const idleP99 = percentile(
      [...idle.produce].sort((a, b) => a - b),
      99,
    );
    const noisyP99 = percentile(
      [...noisy.produce].sort((a, b) => a - b),
      99,
    );
    const burntP99 = percentile(
      [...burnt.produce].sort((a, b) => a - b),
      99,
    );
    console.log(
      `\nnoisy neighbour — ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load ${loadBefore} → ${load()}, ${SECONDS} s per phase, B's requestTimeMsPerSecond ${B_REQUEST_MS}`,
    );
    console.log(
      "| A (ms) | produce p50 / p99 | fetch p50 / p99 | event-loop delay p99 / max | worker's full GCs / ms | produces |",
    );
    console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
    console.log(row("alone", idle));
    console.log(row("under B's flood", noisy));
    console.log(row(`beside a CPU burner of B's ${bCores.toFixed(2)} cores`, burnt));
    console.log(
      `A's produce p99 under the flood / alone: ${(noisyP99 / idleP99).toFixed(2)}× (target ≤ 2×); beside the burner / alone (the floor): ${(burntP99 / idleP99).toFixed(2)}×; leases lost: ${started.leasesLost()} (target 0)`,
    );
    console.log(
      `CPU (cores): worker ${workerIdleCores.toFixed(2)} alone → ${workerFloodCores.toFixed(2)} under the flood; B's process ${floodCores.toFixed(2)}; burners used ${(burnerCpu / (SECONDS + 2)).toFixed(2)}`,
    );
    console.log(`B sent: ${floodReport.trim()}`);
    console.log(`B refused or throttled: ${refusals.join("; ")}`);
    console.log(`unauthenticated sockets refused or closed: ${anonymousRefused.join("; ")}`);
  } finally {
    worker?.child.kill("SIGTERM");
    if (worker) await new Promise((resolve) => worker!.child.once("close", resolve));
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
