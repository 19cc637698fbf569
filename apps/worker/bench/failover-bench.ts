// The failover bench (issue 29): three worker processes (main.ts, default lease and claim settings,
// scheduling on) and a kafkajs idempotent producer used as the README says (one partition per send,
// one send at a time per partition, 5 × 1 KiB records a send) writing to 12 partitions without a
// pause. Each round stops the worker leading the most partitions — SIGKILL, then SIGTERM rounds —
// and measures, per partition it led, the time from the signal to the first acknowledgement of a
// send begun after it. The worker comes back under the same id and the next round waits until
// every worker leads its share again. Knobs: BENCH_FAILOVER_KILLS (6), BENCH_FAILOVER_TERMS (3).
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { DEFAULT_LEASE_TTL_MS } from "../src/worker";
import { CLIENT_SCOPES, createKafkaKey, failoverProducer } from "../test/kafka-client";
import { createNamedTopic } from "../test/test-topics";
import { spawnWorkerProcess, type WorkerProcess } from "../test/worker-process";
import { percentile, waitFor } from "./bench-topics";

const KILLS = Number(process.env.BENCH_FAILOVER_KILLS ?? 6);
const TERMS = Number(process.env.BENCH_FAILOVER_TERMS ?? 3);
const PARTITIONS = 12;
const WORKERS = ["fo-1", "fo-2", "fo-3"];
const ORG = "org_bench_failover";
const TOPIC = "failover";
const SECRET = "bench-failover-secret";

interface Completion {
  partition: number;
  startedAt: number;
  doneAt: number;
}

export async function failoverBenchmark(): Promise<void> {
  const db = await createTestDatabase("lastword_bench_failover");
  const dataDir = await mkdtemp(join(tmpdir(), "lastword-bench-failover-"));
  const redisPrefix = `lastword-bench-failover-${process.pid}`;
  const children: ChildProcess[] = [];
  const live = new Map<string, WorkerProcess>();
  const spawn = async (id: string) => {
    const worker = await spawnWorkerProcess(id, {
      databaseUrl: db.url,
      dataDir,
      secret: SECRET,
      leaseTtlMs: DEFAULT_LEASE_TTL_MS,
      env: { WORKER_KAFKA_PORT: "0", REDIS_PREFIX: redisPrefix },
      track: children,
    });
    live.set(id, worker);
  };
  let producing = true;
  let loops: Promise<void>[] = [];
  try {
    const key = await createKafkaKey(db.prisma, ORG, CLIENT_SCOPES);
    await Promise.all(WORKERS.map(spawn));
    const partitionIds = await createNamedTopic(db.prisma, ORG, TOPIC, PARTITIONS);
    const owners = async () => {
      const rows = await db.prisma.partition.findMany({ where: { id: { in: partitionIds } } });
      return partitionIds.map((id) => rows.find((r) => r.id === id)?.ownerWorkerId ?? null);
    };
    const balanced = async () => {
      const led = await owners();
      const share = Math.floor(PARTITIONS / WORKERS.length);
      return led.every((o) => o !== null) && WORKERS.every((w) => led.filter((o) => o === w).length >= share);
    };
    await waitFor("every worker leads its share", 60_000, balanced);

    const producer = await failoverProducer(
      [...live.values()].map((w) => `${w.kafka.host}:${w.kafka.port}`),
      key,
      "bench-failover",
    );
    const completions: Completion[] = [];
    let failures = 0;
    const value = Buffer.alloc(1024, 7);
    loops = Array.from({ length: PARTITIONS }, async (_, partition) => {
      while (producing) {
        const startedAt = performance.now();
        try {
          await producer.send({
            topic: TOPIC,
            acks: -1,
            messages: Array.from({ length: 5 }, () => ({ partition, value })),
          });
          completions.push({ partition, startedAt, doneAt: performance.now() });
        } catch {
          failures++;
        }
      }
    });

    const samples = { SIGKILL: [] as number[], SIGTERM: [] as number[] };
    const exits: number[] = [];
    const rounds = [
      ...Array.from({ length: KILLS }, () => "SIGKILL" as const),
      ...Array.from({ length: TERMS }, () => "SIGTERM" as const),
    ];
    const steadyFrom = completions.length;
    const steadyAt = performance.now();
    for (const [round, signal] of rounds.entries()) {
      const before = completions.length;
      const silent = () =>
        Array.from({ length: PARTITIONS }, (_, p) => p).filter(
          (p) => !completions.slice(before).some((c) => c.partition === p),
        );
      await waitFor("records flowing on every partition", 60_000, async () => silent().length === 0).catch(
        async (error: Error) => {
          const led = await owners();
          const rows = await db.prisma.partition.findMany({ where: { id: { in: partitionIds } } });
          const epochs = partitionIds.map((id) => rows.find((r) => r.id === id)?.leaseEpoch);
          throw new Error(
            `${error.message}: silent partitions ${silent()
              .map((p) => `${p} (owner ${led[p]}, epoch ${epochs[p]})`)
              .join(", ")}`,
          );
        },
      );
      const led = await owners();
      const [victim] = [...live.keys()].sort(
        (a, b) => led.filter((o) => o === b).length - led.filter((o) => o === a).length,
      );
      const moved = led.flatMap((owner, p) => (owner === victim ? [p] : []));
      const worker = live.get(victim!)!;
      const exited = new Promise<void>((resolve) => worker.child.once("exit", () => resolve()));
      const signalledAt = performance.now();
      worker.child.kill(signal);
      live.delete(victim!);
      await waitFor(`round ${round + 1}: every moved partition acknowledged again`, 120_000, async () =>
        moved.every((p) => completions.some((c) => c.partition === p && c.startedAt >= signalledAt)),
      );
      const times = moved.map(
        (p) => completions.find((c) => c.partition === p && c.startedAt >= signalledAt)!.doneAt - signalledAt,
      );
      samples[signal].push(...times);
      await exited;
      if (signal === "SIGTERM") exits.push(performance.now() - signalledAt);
      console.log(
        `failover round ${round + 1} (${signal} ${victim}, ${moved.length} partitions): ${times.map((t) => Math.round(t)).join(", ")} ms`,
      );
      await spawn(victim!);
      await waitFor("every worker leads its share again", 120_000, balanced);
    }
    const rate = ((completions.length - steadyFrom) * 5) / ((performance.now() - steadyAt) / 1000);
    producing = false;
    await Promise.all(loops);
    await producer.disconnect();

    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(" / ");
    console.log(
      `failover — ${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${load}, ` +
        `lease TTL ${DEFAULT_LEASE_TTL_MS} ms, ${Math.round(rate)} records/s acknowledged over the run, ${failures} failed sends`,
    );
    for (const signal of ["SIGKILL", "SIGTERM"] as const) {
      const sorted = [...samples[signal]].sort((a, b) => a - b);
      if (sorted.length === 0) continue;
      const ms = (p: number) => Math.round(percentile(sorted, p));
      console.log(
        `failover ${signal}: ${sorted.length} partition moves, signal → first ack of a send begun after it: p50 ${ms(50)} ms, p99 ${ms(99)} ms, max ${ms(100)} ms`,
      );
    }
    if (exits.length > 0) {
      console.log(
        `failover SIGTERM: process exited ${exits.map((t) => Math.round(t)).join(", ")} ms after the signal`,
      );
    }
  } finally {
    producing = false;
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
    const keys = await redis.keys(`${redisPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
