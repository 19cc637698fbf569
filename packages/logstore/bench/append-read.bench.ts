import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { decodeBatch, decodeBatchRecords, encodeRecordBatch, type LogRecord } from "@lastword/record-batch";
import { crc32c } from "@node-rs/crc32";
import { PartitionLog } from "../src/index";

// Append (1 KiB records, batches of 100 and 1,000, fsync per batch) and full sequential read,
// each next to a raw baseline on the same bytes in the same run: fs.writeSync + fdatasync of the
// encoded batches, and fs.readSync of the very segment files the log wrote.
//
// Fairness on a shared 2-core VM: every round times each case once, in an order rotated from
// round to round (so no case always follows the one whose garbage the GC is still collecting),
// and a row's ratio is the median of its per-round ratios against the baseline timed in the same
// round (so a slow stretch of the disk or of a neighbour's load hits both sides of a ratio). The
// spread of those per-round ratios is printed too.

const fdatasync = promisify(fs.fdatasync);
const RECORD_BYTES = 1024;
// BENCH_MB / BENCH_APPEND_ROUNDS / BENCH_READ_ROUNDS shorten a run for a before/after check on a
// shared machine; the defaults are what the README's table was measured with.
const TOTAL_BYTES = Number(process.env.BENCH_MB ?? 64) * 1024 * 1024;
const APPEND_ROUNDS = Number(process.env.BENCH_APPEND_ROUNDS ?? 7);
/** A read round costs ~0.1 s: more rounds steady the medians at little cost. */
const READ_ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 15);
const READ_CHUNK_BYTES = 1024 * 1024;

interface Row {
  name: string;
  rawMBps: number;
  oursMBps: number;
  /** Median of the per-round throughput ratios (raw time / our time, same round), and their range. */
  ratio: number;
  low: number;
  high: number;
  target: number;
}

/** A row from per-round times of the baseline and of the case (same length, same rounds). */
function row(
  name: string,
  bytes: number,
  raw: readonly number[],
  ours: readonly number[],
  target: number,
): Row {
  const ratios = raw.map((ms, i) => ms / ours[i]!);
  const mbps = (ms: number) => bytes / 1e6 / (ms / 1000);
  return {
    name,
    rawMBps: mbps(median(raw)),
    oursMBps: mbps(median(ours)),
    ratio: median(ratios),
    low: Math.min(...ratios),
    high: Math.max(...ratios),
    target,
  };
}

/** Runs `cases` once each, starting at `round` mod their count (rotation), collecting times. */
async function rotate(round: number, cases: readonly (() => number | Promise<number>)[], times: number[][]) {
  for (let k = 0; k < cases.length; k++) {
    const i = (round + k) % cases.length;
    times[i]!.push(await cases[i]!());
  }
}

function makeBatch(size: number, batchNo: number) {
  const value = Buffer.alloc(RECORD_BYTES, batchNo & 0xff);
  return Array.from({ length: size }, (_, i) => ({
    key: Buffer.from(`key-${String(batchNo * size + i).padStart(12, "0")}`),
    value,
  }));
}

function rawAppend(file: string, batches: readonly Buffer[]): number {
  const fd = fs.openSync(file, "w");
  const start = performance.now();
  for (const batch of batches) {
    fs.writeSync(fd, batch);
    fs.fdatasyncSync(fd);
  }
  const ms = performance.now() - start;
  fs.closeSync(fd);
  return ms;
}

/** Context only: the same loop with the asynchronous fdatasync the log uses (no blocked event loop). */
async function rawAppendAsyncSync(file: string, batches: readonly Buffer[]): Promise<number> {
  const fd = fs.openSync(file, "w");
  const start = performance.now();
  for (const batch of batches) {
    fs.writeSync(fd, batch);
    await fdatasync(fd);
  }
  const ms = performance.now() - start;
  fs.closeSync(fd);
  return ms;
}

async function logAppend(dir: string, batches: readonly ReturnType<typeof makeBatch>[]): Promise<number> {
  const log = await PartitionLog.open({ dir, config: { "max.message.bytes": 16 << 20 } });
  const start = performance.now();
  for (const batch of batches) await log.append(batch);
  const ms = performance.now() - start;
  await log.close();
  return ms;
}

function rawRead(dir: string): { ms: number; bytes: number } {
  const files = fs.readdirSync(dir).filter((n) => n.endsWith(".log"));
  const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
  let bytes = 0;
  const start = performance.now();
  for (const name of files) {
    const fd = fs.openSync(path.join(dir, name), "r");
    for (
      let n = fs.readSync(fd, buf, 0, buf.length, null);
      n > 0;
      n = fs.readSync(fd, buf, 0, buf.length, null)
    ) {
      bytes += n;
    }
    fs.closeSync(fd);
  }
  return { ms: performance.now() - start, bytes };
}

/** Context only: the same raw read into a fresh buffer per chunk, as a caller-owned result needs. */
function rawReadFresh(dir: string): number {
  const files = fs.readdirSync(dir).filter((n) => n.endsWith(".log"));
  const start = performance.now();
  for (const name of files) {
    const fd = fs.openSync(path.join(dir, name), "r");
    for (;;) {
      const buf = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      if (fs.readSync(fd, buf, 0, buf.length, null) === 0) break;
    }
    fs.closeSync(fd);
  }
  return performance.now() - start;
}

/** Decoded records: one object per record with key/value views (what most callers use). */
async function logReadRecords(log: PartitionLog): Promise<number> {
  const start = performance.now();
  for (let offset = log.logStartOffset; offset < log.logEndOffset; ) {
    const records = await log.read(offset, { maxBytes: READ_CHUNK_BYTES });
    offset = records.at(-1)!.offset + 1;
  }
  return performance.now() - start;
}

/** Whole stored batches, undecoded (what a Kafka-protocol or replication path serves), each read in a fresh buffer. */
async function logReadBatches(log: PartitionLog): Promise<number> {
  const start = performance.now();
  for (let offset = log.logStartOffset; offset < log.logEndOffset; ) {
    offset = (await log.readBatches(offset, { maxBytes: READ_CHUNK_BYTES })).nextOffset;
  }
  return performance.now() - start;
}

/**
 * The same batches read into one reused buffer, as the raw loop reads (`into`). Same 1 MiB fetch
 * budget; the buffer has room for a first batch larger than that (a 1,000-record batch is 1.05 MB).
 */
async function logReadBatchesInto(log: PartitionLog): Promise<number> {
  const into = Buffer.allocUnsafe(2 * READ_CHUNK_BYTES);
  const start = performance.now();
  for (let offset = log.logStartOffset; offset < log.logEndOffset; ) {
    offset = (await log.readBatches(offset, { into, maxBytes: READ_CHUNK_BYTES })).nextOffset;
  }
  return performance.now() - start;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function appendCase(root: string, batchSize: number): Promise<{ rows: Row[]; dir: string }> {
  const count = Math.floor(TOTAL_BYTES / (batchSize * RECORD_BYTES));
  const batches = Array.from({ length: count }, (_, i) => makeBatch(batchSize, i));
  const encoded = batches.map((b, i) =>
    encodeRecordBatch(b, { baseOffset: i * batchSize, appendTimeMs: Date.now() }),
  );
  const bytes = encoded.reduce((sum, b) => sum + b.length, 0);
  const times: number[][] = [[], [], []];
  let dir = "";
  for (let round = 0; round < APPEND_ROUNDS; round++) {
    await rotate(
      round,
      [
        () => rawAppend(path.join(root, `raw-${batchSize}-${round}.bin`), encoded),
        () => {
          dir = path.join(root, `log-${batchSize}-${round}`);
          return logAppend(dir, batches);
        },
        () => rawAppendAsyncSync(path.join(root, `raw-async-${batchSize}-${round}.bin`), encoded),
      ],
      times,
    );
  }
  const [raw, ours, rawAsync] = times as [number[], number[], number[]];
  const rows = [
    row(`append ${batchSize}×1 KiB, fsync/batch`, bytes, raw, ours, 0.7),
    row(`(context) raw append ${batchSize}×1 KiB with async fdatasync`, bytes, raw, rawAsync, 0),
  ];
  return { rows, dir };
}

/**
 * The worker's fetch path: batches read into a reused buffer, then decoded with `decodeBatch`
 * (records are views of that buffer, valid until its next use).
 */
async function logReadBatchesDecoded(log: PartitionLog): Promise<number> {
  const into = Buffer.allocUnsafe(2 * READ_CHUNK_BYTES);
  const start = performance.now();
  for (let offset = log.logStartOffset; offset < log.logEndOffset; ) {
    const page = await log.readBatches(offset, { into, maxBytes: READ_CHUNK_BYTES });
    for (let pos = 0; pos < page.bytes.length; ) {
      const { header, records } = decodeBatch(page.bytes, pos);
      if (records.length === 0) throw new Error("empty batch");
      pos += header.sizeBytes;
    }
    offset = page.nextOffset;
  }
  return performance.now() - start;
}

/** Medians (ms per pass over the log) of the read loops the breakdown is set against. */
interface ReadMedians {
  raw: number;
  fresh: number;
  read: number;
}

async function readCases(dir: string): Promise<{ rows: Row[]; medians: ReadMedians }> {
  const names = [
    "raw",
    "readBatches",
    "readBatches into",
    "read",
    "raw fresh",
    "first read after open",
    "into + decodeBatch",
  ];
  const times: number[][] = names.map(() => []);
  let bytes = 0;
  // One open log for all rounds, as the raw loop reuses its buffer: both measure steady state
  // (from the second round on, the batches are known CRC-clean, as on a broker).
  const log = await PartitionLog.open({ dir });
  for (let round = 0; round < READ_ROUNDS; round++) {
    await rotate(
      round,
      [
        () => {
          const r = rawRead(dir);
          bytes = r.bytes;
          return r.ms;
        },
        () => logReadBatches(log),
        () => logReadBatchesInto(log),
        () => logReadRecords(log),
        () => rawReadFresh(dir),
        async () => {
          // A log just opened after a clean close has verified nothing: every batch is CRC-checked.
          const reopened = await PartitionLog.open({ dir });
          const ms = await logReadBatches(reopened);
          await reopened.close();
          return ms;
        },
        () => logReadBatchesDecoded(log),
      ],
      times,
    );
  }
  await log.close();
  const [raw, batches, batchesInto, records, fresh, firstBatches, intoDecoded] = times as number[][] as [
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
  ];
  const medians = { raw: median(raw), fresh: median(fresh), read: median(records) };
  const rows = [
    row("(context) raw read into a fresh buffer per chunk", bytes, raw, fresh, 0),
    row("(context) readBatches, first read after open (CRC-32C of every batch)", bytes, raw, firstBatches, 0),
    row("(context) readBatches into + decodeBatch (the worker's fetch path)", bytes, raw, intoDecoded, 0),
    row("full sequential read, batches (readBatches)", bytes, raw, batches, 0.5),
    row(
      "full sequential read, batches into a reused buffer (readBatches into)",
      bytes,
      raw,
      batchesInto,
      0.5,
    ),
    row("full sequential read, decoded records (read)", bytes, raw, records, 0.5),
  ];
  return { rows, medians };
}

/**
 * Where a decoded read's time goes, per record, on the same log: each stage timed alone, in its own
 * pass over every batch (each batch read into a reused buffer first, untimed, so the stage runs on
 * cache-warm bytes as it does inside a read), next to the raw loops and `read` from the rounds.
 */
function readBreakdown(dir: string, { raw, fresh, read }: ReadMedians): void {
  const buf = Buffer.allocUnsafe(16 << 20);
  const header = Buffer.allocUnsafe(12);
  const batches: { fd: number; at: number; length: number; spans: Int32Array }[] = [];
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".log"))) {
    const fd = fs.openSync(path.join(dir, name), "r");
    const size = fs.fstatSync(fd).size;
    for (let at = 0; at < size; ) {
      fs.readSync(fd, header, 0, 12, at);
      const length = header.readInt32BE(8) + 12;
      fs.readSync(fd, buf, 0, length, at);
      const out: LogRecord[] = [];
      decodeBatchRecords(buf, 0, out, 0, Number.POSITIVE_INFINITY);
      const spans = Int32Array.from(
        out.flatMap((r) => [r.key!.byteOffset, r.key!.length, r.value!.byteOffset, r.value!.length]),
      );
      batches.push({ fd, at, length, spans });
      at += length;
    }
  }
  const records = batches.reduce((sum, b) => sum + b.spans.length / 4, 0);
  /** One pass: every batch read (untimed), then `work` on it timed; returns the pass's ms. */
  const pass = (work: (batch: (typeof batches)[number]) => void): number => {
    let ms = 0;
    for (const batch of batches) {
      fs.readSync(batch.fd, buf, 0, batch.length, batch.at);
      const t = performance.now();
      work(batch);
      ms += performance.now() - t;
    }
    return ms;
  };
  const stages = { crc: [] as number[], decode: [] as number[], views: [] as number[] };
  for (let round = 0; round < READ_ROUNDS; round++) {
    stages.crc.push(
      pass(({ length }) => {
        if (crc32c(buf.subarray(21, length)) !== buf.readUInt32BE(17)) throw new Error("CRC mismatch");
      }),
    );
    stages.decode.push(pass(() => decodeBatchRecords(buf, 0, [], 0, Number.POSITIVE_INFINITY)));
    // The views alone: the same two Buffers per record, built the way the decoder builds them.
    stages.views.push(
      pass(({ spans }) => {
        const views: Buffer[] = new Array(spans.length >> 1);
        for (let i = 0; i < spans.length; i += 4) {
          views[i >> 1] = Buffer.from(buf.buffer, spans[i]!, spans[i + 1]!);
          views[(i >> 1) + 1] = Buffer.from(buf.buffer, spans[i + 2]!, spans[i + 3]!);
        }
      }),
    );
  }
  for (const batch of new Set(batches.map((b) => b.fd))) fs.closeSync(batch);
  const ns = (ms: number) => ((ms * 1e6) / records).toFixed(0);
  const decode = median(stages.decode);
  console.log(`\nPer record (${records} records of 1 KiB, medians of ${READ_ROUNDS} rounds), ns:`);
  console.log(`| stage | ns/record |`);
  console.log(`|---|---:|`);
  console.log(`| raw read, reused 1 MiB buffer (the baseline) | ${ns(raw)} |`);
  console.log(`| raw read, fresh buffer per chunk (memory a caller may keep) | ${ns(fresh)} |`);
  console.log(`| CRC-32C of the batch (first read of unverified bytes only) | ${ns(median(stages.crc))} |`);
  console.log(`| decode: varints, record objects and key/value views | ${ns(decode)} |`);
  console.log(`| — of which the two key/value views alone | ${ns(median(stages.views))} |`);
  console.log(`| \`read\` total (steady state: no CRC) | ${ns(read)} |`);
  console.log(`| \`read\` − fresh read − decode (GC, per-call work) | ${ns(read - fresh - decode)} |`);
  console.log(`| budget for 0.5× raw | ${ns(raw * 2)} |`);
}

function printTable(rows: readonly Row[]): void {
  console.log(`| case | raw MB/s | logstore MB/s | ratio | target | round ratios |`);
  console.log(`|---|---:|---:|---:|---:|---|`);
  for (const r of rows) {
    const verdict = r.target === 0 ? "—" : `≥ ${r.target}× ${r.ratio >= r.target ? "ok" : "BELOW"}`;
    console.log(
      `| ${r.name} | ${r.rawMBps.toFixed(0)} | ${r.oursMBps.toFixed(0)} | ${r.ratio.toFixed(2)}× | ${verdict} | ${r.low.toFixed(2)}–${r.high.toFixed(2)}× |`,
    );
  }
}

export async function run(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "logstore-bench-"));
  try {
    console.log(
      `${TOTAL_BYTES / (1 << 20)} MiB per case; ${APPEND_ROUNDS} append / ${READ_ROUNDS} read rounds, order rotated per round; ratio = median of per-round ratios; ${new Date().toISOString()}, node ${process.version}, ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
    const small = await appendCase(root, 100);
    const large = await appendCase(root, 1000);
    const reads = await readCases(large.dir);
    printTable([...small.rows, ...large.rows, ...reads.rows]);
    readBreakdown(large.dir, reads.medians);
    console.log(
      `load average at the end: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}`,
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
