/**
 * Accelerated-clock simulation of the erasure deadline guarantee. It models the
 * worker's scheduling, not the log store's bytes: ticks, per-worker single-threaded cleaner queues
 * (priority 1 for forced/overdue passes, as @lastword/jobs orders them), natural passes from write
 * traffic, size and guard rolls, pass durations, and the verification scan on the tick after a pass.
 * The guard's decision is the worker's own rule (@lastword/erasure purgeWaitMs, proofDelays): a
 * tombstone's rewrite is due at once unless min.compaction.lag.ms holds it, and never later than the
 * deadline less the proof's time. Topic configs are Kafka's defaults (max.compaction.lag.ms = never,
 * segment.ms = 7 d, min.compaction.lag.ms = 0), the worst case: without the guard an idle partition
 * never purges.
 *
 *   node --import tsx apps/worker/bench/erasure-sim.ts [requests] [partitions] [seed] [deadline hours]
 */
import { proofDelays, purgeWaitMs, totalDelayMs } from "@lastword/erasure";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const requests = Number(process.argv[2] ?? 5_000);
const partitions = Number(process.argv[3] ?? 400);
let seed = Number(process.argv[4] ?? 42);
const WORKERS = 8;
const TICK_MS = 5 * SECOND;
const DEADLINE_MS = Number(process.argv[5] ?? 30 * 24) * HOUR;
const SEGMENT_MS = 7 * DAY;
const MIN_LAG_MS = 0;
const HORIZON_MS = 70 * DAY;

function random(): number {
  // mulberry32: reproducible runs for the README figures.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

type Traffic = "idle" | "light" | "heavy";
interface SimPartition {
  worker: number;
  traffic: Traffic;
  /** Size rolls (heavy traffic fills a segment) and natural passes (dirty ratio crossed), sorted. */
  rolls: number[];
  naturalPasses: number[];
  passMs: number;
}

function every(intervalMs: number, jitter: number): number[] {
  const times: number[] = [];
  for (let t = random() * intervalMs; t < HORIZON_MS; t += intervalMs * (1 - jitter + 2 * jitter * random()))
    times.push(t);
  return times;
}

function makePartition(index: number): SimPartition {
  const r = random();
  const traffic: Traffic = r < 0.5 ? "idle" : r < 0.85 ? "light" : "heavy";
  return {
    worker: index % WORKERS,
    traffic,
    rolls: traffic === "heavy" ? every(10 * MINUTE, 0.5) : [],
    naturalPasses:
      traffic === "heavy" ? every(30 * MINUTE, 0.5) : traffic === "light" ? every(3 * DAY, 0.5) : [],
    // Heavy partitions are large: their passes take longer.
    passMs: traffic === "heavy" ? 5 * SECOND + random() * 55 * SECOND : 200 + random() * 2 * SECOND,
  };
}

const parts = Array.from({ length: partitions }, (_, i) => makePartition(i));

interface Job {
  partition: number;
  enqueuedAt: number;
  priority: number;
  erasure: boolean;
}

interface Request {
  partition: number;
  writtenAt: number;
  deadlineAt: number;
  dueAt: number;
  verifiedAt: number | null;
}

const nextTick = (t: number) => Math.ceil(t / TICK_MS) * TICK_MS;
const margin = totalDelayMs(proofDelays({ tickMs: TICK_MS, passMs: 60 * SECOND }));

// Requests arrive uniformly over the first 30 days; each tombstone goes to one partition.
const reqs: Request[] = [];
for (let i = 0; i < requests; i++) {
  const writtenAt = random() * 30 * DAY;
  const deadlineAt = writtenAt + DEADLINE_MS;
  // The guard's test on each tick: due once min lag (capped by the deadline less the proof) passed.
  const dueAt = nextTick(writtenAt + purgeWaitMs(MIN_LAG_MS, writtenAt, deadlineAt, margin));
  reqs.push({ partition: Math.floor(random() * partitions), writtenAt, deadlineAt, dueAt, verifiedAt: null });
}

function simulate(withGuard: boolean): number[] {
  const jobs: Job[] = [];
  parts.forEach((p, partition) => {
    for (const t of p.naturalPasses)
      jobs.push({ partition, enqueuedAt: nextTick(t), priority: 3, erasure: false });
  });
  if (withGuard)
    for (const r of reqs)
      jobs.push({ partition: r.partition, enqueuedAt: r.dueAt, priority: 1, erasure: true });
  // Pass start/end per partition, per worker single cleaner thread, priority then FIFO.
  const passes: { partition: number; start: number; end: number; forced: boolean }[] = [];
  for (let w = 0; w < WORKERS; w++) {
    const queue = jobs
      .filter((j) => parts[j.partition]?.worker === w)
      .sort((a, b) => a.enqueuedAt - b.enqueuedAt);
    const waiting: Job[] = [];
    let free = 0;
    let i = 0;
    while (i < queue.length || waiting.length > 0) {
      if (waiting.length === 0) free = Math.max(free, queue[i]?.enqueuedAt ?? free);
      while (i < queue.length && (queue[i]?.enqueuedAt ?? 0) <= free) {
        const job = queue[i++] as Job;
        // jobId = clean-<partition>: a waiting pass absorbs a second one.
        const same = waiting.find((x) => x.partition === job.partition);
        if (same) same.priority = Math.min(same.priority, job.priority);
        else waiting.push(job);
      }
      waiting.sort((a, b) => a.priority - b.priority || a.enqueuedAt - b.enqueuedAt);
      const job = waiting.shift() as Job;
      const p = parts[job.partition] as SimPartition;
      passes.push({
        partition: job.partition,
        start: free,
        end: free + p.passMs,
        forced: job.priority === 1,
      });
      free += p.passMs;
    }
  }
  const byPartition = new Map<number, { start: number; end: number; forced: boolean }[]>();
  for (const pass of passes)
    byPartition.set(pass.partition, [...(byPartition.get(pass.partition) ?? []), pass]);
  for (const list of byPartition.values()) list.sort((a, b) => a.start - b.start);
  const slack: number[] = [];
  for (const r of reqs) {
    const p = parts[r.partition] as SimPartition;
    // The tombstone's segment closes at the next size roll, by segment.ms (an idle partition's
    // tombstone starts its segment; a light one's segment began earlier), or by the guard at dueAt.
    const sizeRoll = p.rolls.find((t) => t > r.writtenAt) ?? Number.POSITIVE_INFINITY;
    const timeRoll = r.writtenAt + (p.traffic === "idle" ? SEGMENT_MS : (r.writtenAt * 7919) % SEGMENT_MS);
    const naturalClose = Math.min(sizeRoll, timeRoll);
    const closedAt = withGuard ? Math.min(naturalClose, r.dueAt) : naturalClose;
    const pass = (byPartition.get(r.partition) ?? []).find((x) => x.start >= closedAt);
    // Verified on the tick after the pass ends (the guard rescans once a pass completed after its scan).
    r.verifiedAt = pass ? nextTick(pass.end) : null;
    slack.push(r.verifiedAt === null ? Number.NEGATIVE_INFINITY : r.deadlineAt - r.verifiedAt);
  }
  return slack.sort((a, b) => a - b);
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

function fmt(ms: number): string {
  if (!Number.isFinite(ms)) return "never";
  return ms >= DAY
    ? `${(ms / DAY).toFixed(2)} d`
    : ms >= HOUR
      ? `${(ms / HOUR).toFixed(2)} h`
      : `${(ms / MINUTE).toFixed(1)} min`;
}

const counts = { idle: 0, light: 0, heavy: 0 };
for (const p of parts) counts[p.traffic]++;
console.log(
  `erasure simulation: ${requests} requests, ${partitions} partitions (idle ${counts.idle}, light ${counts.light}, heavy ${counts.heavy}), ${WORKERS} workers, tick ${TICK_MS / SECOND} s, deadline ${fmt(DEADLINE_MS)}, max.compaction.lag.ms never, segment.ms 7 d`,
);
console.log("| run | before deadline | min slack | p1 | p50 | p99 | max |");
console.log("|---|---|---|---|---|---|---|");
for (const withGuard of [true, false]) {
  const started = performance.now();
  const slack = simulate(withGuard);
  const ok = slack.filter((s) => s >= 0).length;
  console.log(
    `| ${withGuard ? "with guard" : "Kafka rules only"} | ${((100 * ok) / slack.length).toFixed(2)} % | ${fmt(quantile(slack, 0))} | ${fmt(quantile(slack, 0.01))} | ${fmt(quantile(slack, 0.5))} | ${fmt(quantile(slack, 0.99))} | ${fmt(quantile(slack, 1))} |`,
  );
  if (process.env.SIM_VERBOSE) console.log(`  (${(performance.now() - started).toFixed(0)} ms)`);
}
