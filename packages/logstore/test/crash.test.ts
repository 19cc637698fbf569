import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { PartitionLog } from "../src/index";
import { seededRandom, useBundledChild } from "./child-bundle";
import { crashRuns } from "./crash-runs";
import { openLog, tempDir } from "./helpers";

// SIGKILLs a real child process mid-append hundreds of times against one partition directory and
// checks after each kill: every acknowledged record is readable with its exact content, every
// batch present is whole (no half-visible unacknowledged batch), and offsets are consecutive.

const LANES = 4;
// Two full checks with retention per lane in `npm test`; the full campaign under LASTWORD_CRASH_RUNS=full.
const TRIALS_PER_LANE = crashRuns({ full: 50, quick: 20 });
const here = path.dirname(fileURLToPath(import.meta.url));
const bundled = useBundledChild(path.join(here, "fixtures/append-child.ts"), {
  prefix: "logstore-crash-child-",
});
const random = seededRandom(0x5eed);

interface Ack {
  batchId: number;
  baseOffset: number;
  lastOffset: number;
}

/** Runs the child until `ready`, lets it append for `runMs`, SIGKILLs it, returns its acks. */
function runAndKill(dir: string, firstId: number, durability: string, runMs: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [bundled.script, dir, String(firstId), durability, String(firstId)],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (timer === undefined && stdout.includes("ready "))
        timer = setTimeout(() => child.kill("SIGKILL"), runMs);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      if (signal !== "SIGKILL") return reject(new Error(`child exited on its own (${signal}): ${stderr}`));
      const acks = stdout
        .split("\n")
        .filter((line) => line.startsWith("ack ") && stdout.includes(`${line}\n`))
        .map((line) => {
          const [, batchId, baseOffset, lastOffset] = line.split(" ").map(Number);
          return { batchId: batchId!, baseOffset: baseOffset!, lastOffset: lastOffset! };
        });
      resolve(acks);
    });
  });
}

/**
 * Checks [from, logEnd) — `from` must be a batch boundary: consecutive offsets, whole batches,
 * exact contents. Returns offset → batch id.
 */
async function verifyLog(log: PartitionLog, from: number): Promise<Map<number, number>> {
  const owner = new Map<number, number>();
  let expected = from;
  let open: { batchId: number; count: number; next: number } | null = null;
  while (expected < log.logEndOffset) {
    const records = await log.read(expected, { maxBytes: 4 << 20 });
    for (const record of records) {
      expect(record.offset).toBe(expected++);
      const [head] = record.value!.toString().split("|");
      const [batchText, rest] = head!.split(":");
      const [index, count] = rest!.split("/").map(Number);
      const batchId = Number(batchText);
      expect(record.key!.toString()).toBe(`b${batchId}`);
      if (open === null) open = { batchId, count: count!, next: 0 };
      expect([batchId, index, count]).toEqual([open.batchId, open.next, open.count]);
      owner.set(record.offset, batchId);
      open.next++;
      if (open.next === open.count) open = null;
    }
  }
  expect(open).toBeNull();
  return owner;
}

/**
 * One directory killed and reopened `trials` times in a row; returns how many appends were acked.
 * Every 10 trials: a full check of everything still retained, then the records before the
 * previous full check are deleted (deleteRecordsBefore + retention), so the log, and with it
 * every reopen, stays small while retention also runs between crashes.
 */
async function runLane(lane: number, trials: number): Promise<number> {
  const dir = tempDir();
  const allAcks: Ack[] = [];
  let nextId = lane * 1_000_000_000 + 1;
  let verifiedEnd = 0;
  let trimBefore = 0;
  for (let trial = 0; trial < trials; trial++) {
    const durability = trial % 3 === 2 ? "group-commit" : "per-append";
    const acks = await runAndKill(dir, nextId, durability, Math.floor(random() * 40));
    nextId += 1_000_000;
    allAcks.push(...acks);
    const log = await openLog({ dir, config: { "segment.bytes": 96 * 1024, "file.delete.delay.ms": 0 } });
    const full = trial % 10 === 9 || trial === trials - 1;
    expect(log.logEndOffset).toBeGreaterThanOrEqual(verifiedEnd);
    const owner = await verifyLog(log, full ? log.logStartOffset : verifiedEnd);
    for (const ack of full ? allAcks.filter((a) => a.baseOffset >= log.logStartOffset) : acks) {
      for (let offset = ack.baseOffset; offset <= ack.lastOffset; offset++) {
        expect(owner.get(offset), `acked offset ${offset} of batch ${ack.batchId}`).toBe(ack.batchId);
      }
    }
    verifiedEnd = log.logEndOffset;
    if (full) {
      // trimBefore is a former log end, hence a batch boundary: full checks start on whole batches.
      await log.deleteRecordsBefore(trimBefore);
      await log.applyRetention();
      trimBefore = log.logEndOffset;
    }
    await log.close();
  }
  return allAcks.length;
}

describe("crash safety", () => {
  it(`1. SIGKILL mid-append (${LANES} × ${TRIALS_PER_LANE} trials): acked records survive, no batch is half-visible`, async () => {
    // Lanes run side by side (own directories): the children mostly wait on fsync, so this
    // divides the wall time without weakening any trial.
    const acked = await Promise.all(
      Array.from({ length: LANES }, (_, lane) => runLane(lane, TRIALS_PER_LANE)),
    );
    for (const count of acked) expect(count).toBeGreaterThan(TRIALS_PER_LANE);
  }, 180_000);
});
