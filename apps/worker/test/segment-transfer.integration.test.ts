import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeRecordBatch } from "@lastword/logstore";
import { STREAM_PART_BYTES, STREAM_PARTS_IN_FLIGHT } from "@lastword/object-store";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mayHoldKey } from "../src/durability/key-filter";

// A segment larger than a process's heap cap goes up to object storage and comes back through the
// worker's own upload and fetch (segment-transfer.ts), two uploads at once, in a child process
// started with --max-old-space-size=64, and its peak RSS grows by no more than the parts streaming
// holds plus the heap cap: with each segment read into memory (as uploads were before streaming)
// it would grow by both segments' size (Buffers live outside the heap, so the cap alone would not
// stop that; the RSS bound does).

const HEAP_CAP_MB = 64;
// Large values, so the bytes (not the ~15,000 keys the key filter keeps) are what could fill memory.
const RECORDS_PER_BATCH = 100;
const VALUE = Buffer.alloc(10_000, 7);
const BATCHES = 150;
const COUNT = 2;

let dir: string;
let segment: string;
let size = 0;
let server: FauxqsServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lastword-segment-transfer-"));
  segment = join(dir, "00000000000000000000.log");
  const file = await open(segment, "w");
  for (let b = 0; b < BATCHES; b++) {
    const records = Array.from({ length: RECORDS_PER_BATCH }, (_, r) => ({
      key: Buffer.from(`key-${b * RECORDS_PER_BATCH + r}`),
      value: VALUE,
    }));
    const batch = encodeRecordBatch(records, { baseOffset: b * RECORDS_PER_BATCH, appendTimeMs: 0 });
    await file.write(batch, 0, batch.length, size);
    size += batch.length;
  }
  await file.close();
  server = await startFauxqs({ port: 0, logger: false, s3StorageDir: join(dir, "bucket") });
  server.createBucket("lastword-test");
});

afterAll(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface ChildReport {
  baseline: number;
  afterUpload: number;
  afterFetch: number;
  sha256: string[];
  keyFilter: string;
  written: number;
}

function runChild(location: string, count: number): Promise<ChildReport> {
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${HEAP_CAP_MB}`,
      "--import",
      "tsx",
      "apps/worker/test/segment-transfer-child.ts",
      location,
      segment,
      String(size),
      String(count),
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as ChildReport);
      else reject(new Error(`segment transfer child exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

describe.each(["fs", "s3"] as const)("a segment larger than the heap cap (%s store)", (kind) => {
  it("1. is uploaded twice at once and fetched back whole, peak RSS growing only by what streaming holds", async () => {
    expect(size).toBeGreaterThan(2 * HEAP_CAP_MB * 2 ** 20);
    const location =
      kind === "fs"
        ? join(dir, "objects")
        : `s3://lastword-test/transfer?endpoint=${server.address}&forcePathStyle=true`;
    const report = await runChild(location, COUNT);
    const expected = await sha256Of(segment);
    expect(report.sha256).toEqual([expected, expected]);
    expect(report.written).toBe(size);
    expect(await sha256Of(`${segment}.fetched`)).toBe(expected);
    const filter = Buffer.from(report.keyFilter, "base64");
    for (const n of [0, 7_777, BATCHES * RECORDS_PER_BATCH - 1])
      expect(mayHoldKey(filter, Buffer.from(`key-${n}`))).toBe(true);
    // What streaming allows: per upload the parts in flight and the one being filled, the heap
    // (capped), and 16 MiB the runtime grows by besides (sockets, allocator arenas: one CI run
    // measured 1.7 MB over the budget without it) — under half of what holding the two segments
    // would take.
    const RUNTIME_SLACK_BYTES = 16 * 2 ** 20;
    const budget =
      COUNT * (STREAM_PARTS_IN_FLIGHT + 1) * STREAM_PART_BYTES + HEAP_CAP_MB * 2 ** 20 + RUNTIME_SLACK_BYTES;
    expect(budget).toBeLessThan((COUNT * size) / 2);
    const grown = Math.max(report.afterUpload, report.afterFetch) - report.baseline;
    expect(grown).toBeLessThan(budget);
  });
});
