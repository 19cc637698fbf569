import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PartitionLog } from "../src/index";

// Cleaner benchmark: a partition of 1 KiB records over 100,000 keys (~10 versions each),
// cleaned with a 64 MiB offset map, next to a raw copy (read + write + fsync) of the same files.
// Each phase runs in its own process so peak RSS is the phase's own. CLEANER_BENCH_BYTES shrinks
// the partition for quick runs (default 1 GiB).

const RECORD_BYTES = 1024;
const KEYS = 100_000;
const RECORDS_PER_BATCH = 100;
const MAP_BYTES = 64 << 20;
const SEGMENT_BYTES = 128 << 20;
const COPY_CHUNK_BYTES = 1 << 20;
const MiB = 1 << 20;

interface PhaseReport {
  seconds: number;
  bytes: number;
  maxRssBytes: number;
  detail?: Record<string, number | string | null>;
}

const config = {
  "cleanup.policy": "compact",
  "segment.bytes": SEGMENT_BYTES,
  "max.message.bytes": 4 * MiB,
  "min.cleanable.dirty.ratio": 0.01,
};

function phaseReport(seconds: number, bytes: number, detail?: PhaseReport["detail"]): PhaseReport {
  return { seconds, bytes, maxRssBytes: process.resourceUsage().maxRSS * 1024, detail };
}

/** Writes the partition: keys drawn at random, so each has ~totalRecords/KEYS versions. */
async function generate(dir: string, totalBytes: number): Promise<PhaseReport> {
  const log = await PartitionLog.open({ dir, config, durability: "per-append" });
  const records = Math.floor(totalBytes / RECORD_BYTES);
  const value = Buffer.alloc(RECORD_BYTES - 32, 7);
  let state = 12345;
  const started = performance.now();
  for (let written = 0; written < records; written += RECORDS_PER_BATCH) {
    const batch = [];
    for (let i = 0; i < RECORDS_PER_BATCH; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      batch.push({
        key: Buffer.from(`key-${(state >>> 8) % KEYS}`),
        value,
        timestamp: 1_700_000_000_000 + written,
      });
    }
    await log.append(batch);
  }
  await log.roll();
  const bytes = log.segments().reduce((sum, s) => sum + s.sizeBytes, 0);
  await log.close();
  return phaseReport((performance.now() - started) / 1000, bytes);
}

/** Baseline: copy every segment file with plain reads and writes, then fsync the copies. */
function rawCopy(dir: string, target: string): PhaseReport {
  fs.mkdirSync(target, { recursive: true });
  const buf = Buffer.allocUnsafe(COPY_CHUNK_BYTES);
  const started = performance.now();
  let bytes = 0;
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".log"))) {
    const src = fs.openSync(path.join(dir, name), "r");
    const dst = fs.openSync(path.join(target, name), "w");
    for (
      let n = fs.readSync(src, buf, 0, buf.length, null);
      n > 0;
      n = fs.readSync(src, buf, 0, buf.length, null)
    ) {
      fs.writeSync(dst, buf, 0, n);
      bytes += n;
    }
    fs.fsyncSync(dst);
    fs.closeSync(src);
    fs.closeSync(dst);
  }
  return phaseReport((performance.now() - started) / 1000, bytes);
}

/** Memory of opening the partition alone (segment list and in-memory indexes), for comparison. */
async function openOnly(dir: string): Promise<PhaseReport> {
  const log = await PartitionLog.open({ dir, config, dedupeBufferBytes: MAP_BYTES });
  const report = phaseReport(0, 0);
  await log.close();
  return report;
}

async function clean(dir: string): Promise<PhaseReport> {
  const log = await PartitionLog.open({ dir, config, dedupeBufferBytes: MAP_BYTES });
  const bytes = log.segments().reduce((sum, s) => sum + (s.active ? 0 : s.sizeBytes), 0);
  const result = await log.clean();
  await log.close();
  return phaseReport(result.durationMs / 1000, bytes, {
    mapBytesRead: result.mapBytesRead,
    bytesRead: result.bytesRead,
    bytesWritten: result.bytesWritten,
    recordsRead: result.recordsRead,
    recordsRemoved: result.recordsRemoved,
    mapUtilization: result.mapUtilization,
    mapBytes: result.mapBytes,
    nextDirtyOffset: result.nextDirtyOffset,
  });
}

/** Runs one phase of this file in a fresh process and parses its JSON report. */
function runPhase(phase: string, ...args: string[]): PhaseReport {
  const self = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, ["--import", "tsx", self, phase, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split("\n").at(-1)!) as PhaseReport;
}

const mbps = (r: PhaseReport) => r.bytes / MiB / r.seconds;

function row(report: PhaseReport, bytesRead: number, baselineRss: number) {
  return {
    "partition MB/s": mbps(report).toFixed(0),
    "read MB/s": (bytesRead / MiB / report.seconds).toFixed(0),
    seconds: report.seconds.toFixed(2),
    "peak RSS MiB": (report.maxRssBytes / MiB).toFixed(0),
    "RSS over baseline MiB": ((report.maxRssBytes - baselineRss) / MiB).toFixed(0),
  };
}

function main(): void {
  const totalBytes = Number(process.env.CLEANER_BENCH_BYTES ?? 1 << 30);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "cleaner-bench-"));
  try {
    const dir = path.join(root, "partition");
    const gen = runPhase("generate", dir, String(totalBytes));
    const idle = runPhase("idle");
    const opened = runPhase("open", dir);
    const raw = runPhase("raw-copy", dir, path.join(root, "copy"));
    const cleaned = runPhase("clean", dir);
    const detail = cleaned.detail ?? {};
    const cleanerRead = Number(detail.mapBytesRead) + Number(detail.bytesRead);
    console.log(
      `cleaner: ${(gen.bytes / MiB).toFixed(0)} MiB of ${RECORD_BYTES} B records over ${KEYS} keys`,
    );
    console.table({
      "raw copy (read+write+fsync)": row(raw, raw.bytes, idle.maxRssBytes),
      "cleaner pass": row(cleaned, cleanerRead, opened.maxRssBytes),
    });
    console.log(
      `baselines: raw copy vs a process that only loaded the library (${(idle.maxRssBytes / MiB).toFixed(0)} MiB); ` +
        `cleaner vs one that also opened the partition (${(opened.maxRssBytes / MiB).toFixed(0)} MiB)`,
    );
    const mapBytes = Number(detail.mapBytes);
    const usable = Math.floor((mapBytes / 24) * 0.9);
    console.log(
      `ratio ${(mbps(cleaned) / mbps(raw)).toFixed(2)}× raw copy (target ≥ 0.5×); map budget ${MAP_BYTES / MiB} MiB, ` +
        `used ${(mapBytes / MiB).toFixed(1)} MiB (sized to the ${detail.recordsRead} dirty records): ` +
        `24 B per slot, ${(mapBytes / usable).toFixed(1)} B per usable entry at load factor 0.9`,
    );
    console.log("pass detail", detail);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** bench/run.ts imports this module and awaits `run`; phases run when this file is the entry point. */
export async function run(): Promise<void> {
  main();
}

const isEntryPoint =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntryPoint) {
  const [phase, a, b] = process.argv.slice(2);
  if (phase === "generate") console.log(JSON.stringify(await generate(a!, Number(b))));
  else if (phase === "raw-copy") console.log(JSON.stringify(rawCopy(a!, b!)));
  else if (phase === "clean") console.log(JSON.stringify(await clean(a!)));
  else if (phase === "idle") console.log(JSON.stringify(phaseReport(0, 0)));
  else if (phase === "open") console.log(JSON.stringify(await openOnly(a!)));
  else main();
}
