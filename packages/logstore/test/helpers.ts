import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect } from "vitest";
import {
  type LogRecord,
  LogStoreError,
  ManualClock,
  PartitionLog,
  type PartitionLogOptions,
  readBatchHeader,
} from "../src/index";

/** The manual clock at a fixed start, so scenarios do not depend on when they run. */
export class TestClock extends ManualClock {
  constructor(startMs = 1_700_000_000_000) {
    super(startMs);
  }
}

const dirs: string[] = [];
const logs: PartitionLog[] = [];

afterEach(async () => {
  for (const log of logs.splice(0)) await log.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "logstore-test-"));
  dirs.push(dir);
  return dir;
}

/** Opens a log that is closed after the test (closing twice is harmless). */
export async function openLog(
  options: Partial<PartitionLogOptions> & { dir?: string } = {},
): Promise<PartitionLog> {
  const log = await PartitionLog.open({ dir: options.dir ?? tempDir(), ...options } as PartitionLogOptions);
  logs.push(log);
  return log;
}

export function kv(key: string | null, value: string | null, timestamp?: number) {
  return {
    key: key === null ? null : Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
    ...(timestamp === undefined ? {} : { timestamp }),
  };
}

export function text(buffer: Buffer | null): string | null {
  return buffer === null ? null : buffer.toString();
}

/**
 * Every record from the log start, read in steps. maxBytes is large so that a batch emptied of the
 * records at or after `from` can never end a read early.
 */
export async function replayLog(log: PartitionLog): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  let from = log.logStartOffset;
  while (from < log.logEndOffset) {
    const records = await log.read(from, { maxRecords: 1000, maxBytes: 64 << 20 });
    if (records.length === 0) break;
    out.push(...records);
    from = records.at(-1)!.offset + 1;
  }
  return out;
}

/** The LogStoreError code `promise` rejects with, or "none" when it resolves. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "none";
  } catch (error) {
    expect(error).toBeInstanceOf(LogStoreError);
    return (error as LogStoreError).code;
  }
}

/** The `.log` segment files under `dir`, oldest first, as their bytes. */
export function segmentFiles(dir: string): Buffer[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".log"))
    .sort()
    .map((name) => fs.readFileSync(path.join(dir, name)));
}

/** One stored batch: its header and its bytes (a view of the buffer it was read from). */
export interface StoredBatch {
  header: ReturnType<typeof readBatchHeader>;
  bytes: Buffer;
}

/** The batches of `buf`, whole batches back to back as a segment file or a log read holds them. */
export function batchesIn(buf: Buffer): StoredBatch[] {
  const out: StoredBatch[] = [];
  for (let at = 0; at < buf.length; ) {
    const header = readBatchHeader(buf, at);
    out.push({ header, bytes: buf.subarray(at, at + header.sizeBytes) });
    at += header.sizeBytes;
  }
  return out;
}

/** Every batch in `dir`'s segment files, in offset order. */
export function batchesOnDisk(dir: string): StoredBatch[] {
  return segmentFiles(dir).flatMap(batchesIn);
}
