import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PartitionLog, readBatchHeader } from "@lastword/logstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostedLogOf, visibleUpTo } from "./visible-log";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "lastword-visible-log-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const batch = (n: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`k${n}.${i}`),
    value: Buffer.from(`v${n}.${i}`),
  }));

function baseOffsets(bytes: Buffer): number[] {
  const bases: number[] = [];
  for (let pos = 0; pos < bytes.length; ) {
    const header = readBatchHeader(bytes, pos);
    bases.push(header.baseOffset);
    pos += header.sizeBytes;
  }
  return bases;
}

describe("the read view up to the durable end", () => {
  it("ends at the durable end: no batch or record at or above it, whatever the read asks for", async () => {
    const log = await PartitionLog.open({ dir: join(root, "p") });
    // Batches at 0..2, 3..6, 7..8; durable up to 7 (the end of the second).
    for (const [n, count] of [3, 4, 2].entries()) await log.append(batch(n, count));
    const view = visibleUpTo(log, 7);
    expect([view.logEndOffset, view.highWatermark]).toEqual([7, 7]);
    // Per-log caches see one log behind every read's view.
    expect(hostedLogOf(view)).toBe(log);
    expect(hostedLogOf(log)).toBe(log);
    expect(view.logStartOffset).toBe(0);
    const read = await view.readBatches(0, { maxBytes: 1 << 20 });
    expect(baseOffsets(read.bytes)).toEqual([0, 3]);
    expect(read.nextOffset).toBe(7);
    expect(await view.readBatches(7)).toEqual({ bytes: Buffer.alloc(0), nextOffset: 7 });
    expect((await view.read(2, {})).map((r) => r.offset)).toEqual([2, 3, 4, 5, 6]);
    expect(await view.read(8, {})).toEqual([]);
    // The log itself is untouched, and a view at its end is the log.
    expect(baseOffsets((await log.readBatches(0)).bytes)).toEqual([0, 3, 7]);
    expect(visibleUpTo(log, 9)).toBe(log);
    await log.close();
  });
});
