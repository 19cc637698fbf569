import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Segment } from "../src/segment";
import { openLog } from "./helpers";

// A read takes what its budget can serve: with large batches it must not read most of one it
// cannot serve (a Kafka Fetch's 1 MiB partition budget over 600 KB batches used to read 1 MiB).
// Bytes read are counted on Segment.readLog, the one call every read of a segment file makes.

const BATCH_VALUE_BYTES = 600_000;

async function logOfLargeBatches(count: number) {
  const log = await openLog({ config: { "segment.bytes": 64 << 20 } });
  for (let i = 0; i < count; i++)
    await log.append([{ key: Buffer.from(`k${i}`), value: randomBytes(BATCH_VALUE_BYTES) }]);
  return log;
}

function countingReads() {
  let bytes = 0;
  const original = Segment.prototype.readLog;
  const spy = vi.spyOn(Segment.prototype, "readLog").mockImplementation(function (this: Segment, ...args) {
    const read = original.apply(this, args);
    bytes += read;
    return read;
  });
  return { bytes: () => bytes, spy };
}

afterEach(() => vi.restoreAllMocks());

describe("read windows over large batches", () => {
  it("1. a 1 MiB budget over 600 KB batches reads one batch and a few headers, not 1 MiB", async () => {
    const log = await logOfLargeBatches(3);
    const reads = countingReads();
    const read = await log.readBatches(0, { maxBytes: 1 << 20 });
    const served = read.bytes.length;
    expect(served).toBeGreaterThan(BATCH_VALUE_BYTES);
    expect(read.nextOffset).toBe(1);
    // The batch, its probe (8 KiB), a 12-byte length, and the next window's probe: under 1.05× it.
    expect(reads.bytes()).toBeLessThan(served + 20 * 1024);
    await log.close();
  });

  it("2. a budget taking every batch serves them all, reading each byte once (plus probes)", async () => {
    const log = await logOfLargeBatches(3);
    const reads = countingReads();
    const read = await log.readBatches(0, { maxBytes: 4 << 20 });
    expect(read.nextOffset).toBe(3);
    expect(reads.bytes()).toBeLessThan(read.bytes.length + 20 * 1024);
    // From the middle: the first batch's bytes are skipped by their header.
    const before = reads.bytes();
    const tail = await log.readBatches(1, { maxBytes: 4 << 20 });
    expect(tail.nextOffset).toBe(3);
    expect(reads.bytes() - before).toBeLessThan(tail.bytes.length + 20 * 1024);
    await log.close();
  });
});
