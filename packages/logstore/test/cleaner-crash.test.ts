import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type AbortedTxn, type LogRecord, PartitionLog, type ProducerEntry } from "../src/index";
import { seededRandom, useBundledChild } from "./child-bundle";
import { liveLogHashes } from "./cleaner-crash-snapshot";
import { crashRuns } from "./crash-runs";
import { kv, replayLog, text } from "./helpers";

// Crash safety of cleaning: a child process runs forced passes over a copy of a prepared partition
// and is SIGKILLed, either at a chosen cleaner fault point (every durable step of the swap
// protocol: data written, synced, range recorded, promoted, replaced, old segments retired,
// installed, checkpointed) or after a random delay. The parent then reopens the directory (which
// runs swap recovery) and checks: no temporary files left, segments do not overlap, the replay
// equals the model, every live key's latest record is at its offset, no offset appeared, and a
// further pass over the recovered log keeps all of that true.

/**
 * Fault-point kills required; prepared partitions are added until they provide this many. Each
 * partition's kills spread over every fault point of both its passes, so `npm test`'s few
 * partitions reach every step; LASTWORD_CRASH_RUNS=full runs the full campaign.
 */
const FAULT_KILLS = crashRuns({ full: 200, quick: 60 });
const MAX_TEMPLATES = 20;
const FAULT_KILLS_PER_TEMPLATE = 20;
const TIMED_KILLS_PER_TEMPLATE = 2;
const LANES = 3;
const DELETE_RETENTION_MS = 60_000;
const T0 = 1_700_000_000_000;

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * A SIGKILL loses nothing already written to the page cache, so fsync latency adds nothing this
 * test can observe; on tmpfs the 200+ trials run in a fraction of the time they take on disk.
 */
function scratchRoot(): string {
  return fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
}

const work = useBundledChild(path.join(here, "cleaner-crash-child.ts"), {
  prefix: "cleaner-crash-",
  root: scratchRoot(),
});
const random = seededRandom(0xc1ea4);
const pick = (n: number) => Math.floor(random() * n);

interface Template {
  dir: string;
  config: Record<string, string | number>;
  dedupeBufferBytes: number;
  model: Map<string, { offset: number; value: string | null }>;
  offsets: Set<number>;
  /** Live segment logs before the passes, then after each group's swap (from the calibration run). */
  states: Record<string, string>[];
  /** Fault point names of an uninterrupted run, in order. */
  points: string[];
  /** The transactional state before the passes: a pass must leave it as it was. */
  aborted: AbortedTxn[];
  producers: ProducerEntry[];
}

type LogState = Record<string, string>;

/** A partition with history: several segments, earlier passes, stamped tombstones, a dirty tail. */
async function makeTemplate(index: number): Promise<Template> {
  const dir = path.join(work.dir, `template-${index}`);
  const config = {
    "cleanup.policy": "compact",
    "segment.bytes": 600 + pick(1400),
    "delete.retention.ms": DELETE_RETENTION_MS,
    "min.cleanable.dirty.ratio": 0.01,
  };
  const dedupeBufferBytes = random() < 0.4 ? 24 * (2 + pick(20)) : 1 << 20;
  let nowMs = T0;
  const log = await PartitionLog.open({ dir, config, dedupeBufferBytes, clock: { now: () => nowMs } });
  const model: Template["model"] = new Map();
  // Each key's latest committed record, by offset: a transaction's records count at its COMMIT.
  const commit = (key: string, offset: number, value: string | null) => {
    if ((model.get(key)?.offset ?? -1) < offset) model.set(key, { offset, value });
  };
  // Two transactional producers: some batches are theirs, their markers come at random, COMMIT
  // or ABORT, and every transaction is decided before a round ends (an open one bounds the LSO).
  const open = new Map<number, { key: string; offset: number; value: string | null }[]>();
  const sequences = new Map<number, number>();
  const decide = async (pid: number) => {
    const committed = random() < 0.6;
    await log.appendTxnMarker({
      producerId: pid,
      producerEpoch: 0,
      coordinatorEpoch: 0,
      commit: committed,
      timestampMs: nowMs,
    });
    if (committed) for (const r of open.get(pid) ?? []) commit(r.key, r.offset, r.value);
    open.delete(pid);
  };
  const rounds = 2 + pick(2);
  for (let round = 0; round < rounds; round++) {
    const batches = 6 + pick(14);
    for (let b = 0; b < batches; b++) {
      const records = Array.from({ length: 1 + pick(3) }, () => {
        const roll = random();
        return {
          key: `k${pick(16)}`,
          value: roll < 0.2 ? null : roll < 0.25 ? "" : `v${round}.${b}.${pick(1000)}`,
        };
      });
      const pid = random() < 0.3 ? 1 + pick(2) : null;
      if (pid === null) {
        const { baseOffset } = await log.append(records.map((r) => kv(r.key, r.value)));
        for (const [i, r] of records.entries()) commit(r.key, baseOffset + i, r.value);
      } else {
        const baseSequence = sequences.get(pid) ?? 0;
        const { baseOffset } = await log.append(
          records.map((r) => kv(r.key, r.value)),
          { producer: { producerId: pid, producerEpoch: 0, baseSequence }, transactional: true },
        );
        sequences.set(pid, baseSequence + records.length);
        const held = open.get(pid) ?? [];
        for (const [i, r] of records.entries())
          held.push({ key: r.key, offset: baseOffset + i, value: r.value });
        open.set(pid, held);
      }
      if (random() < 0.15 && open.size > 0) await decide([...open.keys()][pick(open.size)]!);
    }
    for (const pid of [...open.keys()]) await decide(pid);
    await log.roll();
    if (round < rounds - 1) await log.clean({ force: true });
    nowMs += 1000;
  }
  await log.append([kv("tail", "in the active segment")]);
  model.set("tail", { offset: log.logEndOffset - 1, value: "in the active segment" });
  const offsets = new Set((await replayLog(log)).map((r) => r.offset));
  const aborted = log.abortedTransactions(0, Number.MAX_SAFE_INTEGER);
  const producers = log.producerState.entries();
  await log.close();
  return {
    dir,
    config,
    dedupeBufferBytes,
    model,
    offsets,
    states: [liveLogHashes(dir)],
    points: [],
    aborted,
    producers,
  };
}

/** Passes the child runs: one that compacts and stamps, one past every horizon. */
const passTimesMs = [T0 + 100_000, T0 + 100_000 + 2 * DELETE_RETENTION_MS];

interface ChildOutcome {
  killed: boolean;
  hits: number;
  /** With snapshots: the fault point names in order, and the live logs at each. */
  points: { name: string; logs: Record<string, string> }[];
}

function runChild(
  dir: string,
  template: Template,
  killAt: number,
  killAfterMs: number | null,
  snapshots = false,
): Promise<ChildOutcome> {
  const spec = JSON.stringify({
    config: template.config,
    dedupeBufferBytes: template.dedupeBufferBytes,
    passTimesMs,
    killAt,
    snapshots,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [work.script, dir, spec], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killAfterMs !== null && stdout.includes("ready")) {
        setTimeout(() => child.kill("SIGKILL"), killAfterMs);
        killAfterMs = null;
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      const points = [...stdout.matchAll(/^snap (\S+) (.*)$/gm)].map((m) => ({
        name: m[1]!,
        logs: JSON.parse(m[2]!) as Record<string, string>,
      }));
      if (signal === "SIGKILL") resolve({ killed: true, hits: -1, points });
      else if (code === 0)
        resolve({ killed: false, hits: Number(/done (\d+)/.exec(stdout)?.[1] ?? -1), points });
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
}

/** Opens the directory (running recovery) and checks every invariant; optionally runs one more pass. */
async function verify(
  dir: string,
  template: Template,
  passAgain: boolean,
  acceptable: LogState[],
): Promise<void> {
  const nowMs = passTimesMs[1]! + 1;
  const log = await PartitionLog.open({
    dir,
    config: template.config,
    dedupeBufferBytes: template.dedupeBufferBytes,
    clock: { now: () => nowMs },
  });
  try {
    expect(fs.readdirSync(dir).filter((name) => /\.(cleaned|swap)$/.test(name))).toEqual([]);
    // Old or new segments, never a mix: the live logs are exactly one state of the calibration run.
    expect(acceptable).toContainEqual(liveLogHashes(dir));
    const segments = log.segments();
    for (let i = 1; i < segments.length; i++) {
      expect(segments[i]!.baseOffset).toBeGreaterThan(segments[i - 1]!.lastOffset);
    }
    checkAgainstModel(await replayLog(log), template);
    // The transactional state is rebuilt as it was: no transaction open, the same aborted ones
    // (their data gone or not), the same producers.
    expect(log.openTransactions()).toEqual([]);
    expect(log.abortedTransactions(0, Number.MAX_SAFE_INTEGER)).toEqual(template.aborted);
    expect(log.producerState.entries()).toEqual(template.producers);
    if (passAgain) {
      await log.clean({ force: true });
      checkAgainstModel(await replayLog(log), template);
    }
  } finally {
    await log.close();
  }
}

function checkAgainstModel(records: LogRecord[], template: Template): void {
  const state = new Map<string, string>();
  let previous = -1;
  for (const record of records) {
    expect(record.offset).toBeGreaterThan(previous);
    expect(template.offsets.has(record.offset)).toBe(true);
    previous = record.offset;
    if (record.value === null) state.delete(text(record.key)!);
    else state.set(text(record.key)!, text(record.value)!);
  }
  const live = [...template.model].filter(([, latest]) => latest.value !== null);
  expect(state).toEqual(new Map(live.map(([key, latest]) => [key, latest.value!])));
  const byOffset = new Map(records.map((r) => [r.offset, r]));
  for (const [key, latest] of live) {
    const record = byOffset.get(latest.offset);
    expect(record === undefined ? null : [text(record.key), text(record.value)]).toEqual([key, latest.value]);
  }
}

interface Trial {
  template: Template;
  killAt: number;
  killAfterMs: number | null;
}

/** The state a kill at fault point `killAt` must recover to: after the last promoted group. */
function expectedStates(trial: Trial): LogState[] {
  const { states, points } = trial.template;
  if (trial.killAt === 0) return states;
  const committed = points.slice(0, trial.killAt).filter((name) => name === "promoted").length;
  return [states[committed]!];
}

async function runTrial(trial: Trial, index: number): Promise<boolean> {
  const dir = path.join(work.dir, `trial-${index}`);
  fs.cpSync(trial.template.dir, dir, { recursive: true });
  try {
    const outcome = await runChild(dir, trial.template, trial.killAt, trial.killAfterMs);
    await verify(dir, trial.template, index % 3 === 0, expectedStates(trial));
    return outcome.killed;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("cleaner crash safety", () => {
  it("SIGKILL at every step of passes recovers to old or new segments, never a mix or a loss", async () => {
    const trials: Trial[] = [];
    let faultKills = 0;
    for (let t = 0; t < MAX_TEMPLATES && faultKills < FAULT_KILLS; t++) {
      const template = await makeTemplate(t);
      const calibration = path.join(work.dir, `calibration-${t}`);
      fs.cpSync(template.dir, calibration, { recursive: true });
      const { hits, points } = await runChild(calibration, template, 0, null, true);
      template.points = points.map((p) => p.name);
      template.states.push(...points.filter((p) => p.name === "swap-synced").map((p) => p.logs));
      await verify(calibration, template, true, [template.states.at(-1)!]);
      fs.rmSync(calibration, { recursive: true, force: true });
      expect(hits).toBeGreaterThan(0);
      // Kill points spread over every fault point of both passes, plus a few at random times.
      for (let k = 0; k < Math.min(hits, FAULT_KILLS_PER_TEMPLATE); k++) {
        const killAt =
          hits <= FAULT_KILLS_PER_TEMPLATE ? k + 1 : 1 + Math.floor((k * hits) / FAULT_KILLS_PER_TEMPLATE);
        trials.push({ template, killAt, killAfterMs: null });
        faultKills++;
      }
      for (let k = 0; k < TIMED_KILLS_PER_TEMPLATE; k++)
        trials.push({ template, killAt: 0, killAfterMs: pick(15) });
    }
    let next = 0;
    let killed = 0;
    const lane = async () => {
      while (next < trials.length) {
        const index = next++;
        if (await runTrial(trials[index]!, index)) killed++;
      }
    };
    await Promise.all(Array.from({ length: LANES }, lane));
    // Every fault-point trial is a kill (the calibration run reached each point); timed ones mostly.
    expect(faultKills).toBeGreaterThanOrEqual(FAULT_KILLS);
    expect(killed).toBeGreaterThanOrEqual(FAULT_KILLS);
  }, 300_000);
});
