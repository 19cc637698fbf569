import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PartitionLog } from "../src/index";
import { encodeRecordBatch } from "../src/record-batch";

// Append (1 KiB records, batches of 100 and 1,000, fsync per batch) and full sequential read,
// each next to a raw baseline on the same bytes in the same run: fs.writeSync + fdatasync of the
// encoded batches, and fs.readSync of the very segment files the log wrote.

const fdatasync = promisify(fs.fdatasync);
const RECORD_BYTES = 1024;
const TOTAL_BYTES = 64 * 1024 * 1024;
const ROUNDS = 5;
const READ_CHUNK_BYTES = 1024 * 1024;

interface Row {
  name: string;
  rawMBps: number;
  oursMBps: number;
  target: number;
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

function median(values: number[]): number {
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
  const raw: number[] = [];
  const rawAsync: number[] = [];
  const ours: number[] = [];
  let dir = "";
  for (let round = 0; round < ROUNDS; round++) {
    raw.push(rawAppend(path.join(root, `raw-${batchSize}-${round}.bin`), encoded));
    dir = path.join(root, `log-${batchSize}-${round}`);
    ours.push(await logAppend(dir, batches));
    rawAsync.push(await rawAppendAsyncSync(path.join(root, `raw-async-${batchSize}-${round}.bin`), encoded));
  }
  const mbps = (ms: number) => bytes / 1e6 / (ms / 1000);
  const rawMBps = mbps(median(raw));
  const rows = [
    { name: `append ${batchSize}×1 KiB, fsync/batch`, rawMBps, oursMBps: mbps(median(ours)), target: 0.7 },
    {
      name: `(context) raw append ${batchSize}×1 KiB with async fdatasync`,
      rawMBps,
      oursMBps: mbps(median(rawAsync)),
      target: 0,
    },
  ];
  return { rows, dir };
}

async function readCases(dir: string): Promise<Row[]> {
  const raw: number[] = [];
  const batches: number[] = [];
  const batchesInto: number[] = [];
  const records: number[] = [];
  const fresh: number[] = [];
  const firstBatches: number[] = [];
  let bytes = 0;
  // One open log for all rounds, as the raw loop reuses its buffer: both measure steady state
  // (from the second round on, the batches are known CRC-clean, as on a broker).
  const log = await PartitionLog.open({ dir });
  for (let round = 0; round < ROUNDS; round++) {
    const r = rawRead(dir);
    bytes = r.bytes;
    raw.push(r.ms);
    batches.push(await logReadBatches(log));
    batchesInto.push(await logReadBatchesInto(log));
    records.push(await logReadRecords(log));
    fresh.push(rawReadFresh(dir));
    // A log just opened after a clean close has verified nothing: every batch is CRC-checked.
    const reopened = await PartitionLog.open({ dir });
    firstBatches.push(await logReadBatches(reopened));
    await reopened.close();
  }
  await log.close();
  const mbps = (ms: number) => bytes / 1e6 / (ms / 1000);
  const rawMBps = mbps(median(raw));
  return [
    {
      name: "(context) raw read into a fresh buffer per chunk",
      rawMBps,
      oursMBps: mbps(median(fresh)),
      target: 0,
    },
    {
      name: "(context) readBatches, first read after open (CRC-32C of every batch)",
      rawMBps,
      oursMBps: mbps(median(firstBatches)),
      target: 0,
    },
    {
      name: "full sequential read, batches (readBatches)",
      rawMBps,
      oursMBps: mbps(median(batches)),
      target: 0.5,
    },
    {
      name: "full sequential read, batches into a reused buffer (readBatches into)",
      rawMBps,
      oursMBps: mbps(median(batchesInto)),
      target: 0.5,
    },
    {
      name: "full sequential read, decoded records (read)",
      rawMBps,
      oursMBps: mbps(median(records)),
      target: 0.5,
    },
  ];
}

function printTable(rows: readonly Row[]): void {
  console.log(`| case | raw MB/s | logstore MB/s | ratio | target |`);
  console.log(`|---|---:|---:|---:|---:|`);
  for (const row of rows) {
    const ratio = row.oursMBps / row.rawMBps;
    const verdict = row.target === 0 ? "—" : `≥ ${row.target}× ${ratio >= row.target ? "ok" : "BELOW"}`;
    console.log(
      `| ${row.name} | ${row.rawMBps.toFixed(0)} | ${row.oursMBps.toFixed(0)} | ${ratio.toFixed(2)}× | ${verdict} |`,
    );
  }
}

export async function run(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "logstore-bench-"));
  try {
    console.log(
      `${TOTAL_BYTES / (1 << 20)} MiB per case, median of ${ROUNDS} interleaved rounds, node ${process.version}, ${os.cpus().length} cores`,
    );
    const small = await appendCase(root, 100);
    const large = await appendCase(root, 1000);
    printTable([...small.rows, ...large.rows, ...(await readCases(large.dir))]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
