import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, PartitionLog } from "@lastword/logstore";
import "@lastword/record-batch/node-codecs";
import { decodeBatch, inflateBatch, readBatchHeader } from "@lastword/record-batch";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { HostedLog } from "../hosting/hosted-log";
import { withKeyIndex } from "../hosting/indexed-log";
import { partitionLogOpener } from "../hosting/log-opener";
import { visibleUpTo } from "../hosting/visible-log";
import { type LatestFreeze, LatestViews, readLatest } from "./latest-view";

const NOW = 1_700_000_000_000;
const root = mkdtempSync(join(tmpdir(), "latest-view-"));
let logs = 0;
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Write = { key: string; value: string | null };

/** A log holding `batches` (one append each) and the view's offsets: every key's latest. */
async function viewOf(batches: Write[][], config: Record<string, string> = {}) {
  const log = await PartitionLog.open({ dir: join(root, String(logs++)), config });
  const latest = new Map<string, number>();
  for (const batch of batches) {
    const { baseOffset } = await log.append(
      batch.map((w) => ({ key: Buffer.from(w.key), value: w.value === null ? null : Buffer.from(w.value) })),
    );
    for (const [i, w] of batch.entries()) latest.set(w.key, baseOffset + i);
  }
  const offsets = Float64Array.from([...latest.values()].sort((a, b) => a - b));
  const freeze: LatestFreeze = { log: log as unknown as HostedLog, end: log.logEndOffset, offsets };
  return { log, freeze };
}

/** What a log read hands out: every readBatches call's bytes, counted. */
function counted(log: PartitionLog) {
  const reads: number[] = [];
  const hosted = new Proxy(log, {
    get(target, prop) {
      if (prop === "readBatches") {
        return async (...args: Parameters<PartitionLog["readBatches"]>) => {
          const read = await target.readBatches(...args);
          reads.push(read.bytes.length);
          return read;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as HostedLog;
  return { hosted, reads };
}

function batchesOf(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let pos = 0; pos < bytes.length; pos += readBatchHeader(bytes, pos).sizeBytes) {
    out.push(bytes.subarray(pos, pos + readBatchHeader(bytes, pos).sizeBytes));
  }
  return out;
}

const recordsOf = (bytes: Buffer) =>
  batchesOf(bytes).flatMap((b) =>
    decodeBatch(inflateBatch(b, 0)).records.map((r): [number, string, string | null] => [
      r.offset,
      r.key!.toString(),
      r.value?.toString() ?? null,
    ]),
  );

const noTail = async () => Buffer.alloc(0);
const version = (v: number, keys: number, from = 0): Write[] =>
  Array.from({ length: keys }, (_, k) => ({ key: `k${from + k}`, value: `${v}:${"x".repeat(100)}` }));

describe("the view's read path (readLatest)", () => {
  it("passes the batches of the latest versions as stored and reads no batch it does not answer", async () => {
    // Each version of 40 keys in its own batches of 20, as the cold-start bench writes them.
    const { log, freeze } = await viewOf([0, 1, 2].flatMap((v) => [version(v, 20), version(v, 20, 20)]));
    const stored = (await log.readBatches(80, { maxBytes: 1 << 20 })).bytes;
    const [first, second] = batchesOf(stored);
    const { hosted, reads } = counted(log);
    // Room for one and a half batches: the second would not fit, so it is not read.
    const answer = await readLatest(hosted, freeze, 0, Math.floor(first!.length * 1.5), NOW, noTail);
    expect(answer.equals(first!)).toBe(true);
    expect(reads).toEqual([first!.length]);
    const next = await readLatest(hosted, freeze, 100, 1 << 20, NOW, noTail);
    expect(next.equals(second!)).toBe(true);
    await log.close();
  });

  it("drops superseded batches between kept ones and rebuilds partly kept ones, offsets preserved", async () => {
    const { log, freeze } = await viewOf([
      version(0, 3),
      [{ key: "k0", value: "new" }, ...version(0, 1, 9)],
      version(1, 2, 1),
      [{ key: "k9", value: null }],
    ]);
    // Offsets 0–2 k0..k2 (all superseded), 3 k0, 4 k9 (superseded), 5 k1, 6 k2, 7 the k9 tombstone.
    const answer = await readLatest(log as unknown as HostedLog, freeze, 0, 1 << 20, NOW, noTail);
    expect(
      recordsOf(answer).map(([offset, key, value]) => [offset, key, value?.slice(0, 3) ?? null]),
    ).toEqual([
      [3, "k0", "new"],
      [5, "k1", "1:x"],
      [6, "k2", "1:x"],
      [7, "k9", null],
    ]);
    const stored = batchesOf((await log.readBatches(5, { maxBytes: 1 << 20 })).bytes);
    // The batch of offsets 5–6 and the tombstone's go as stored; 3–4 is rebuilt with 3 only.
    expect(
      batchesOf(answer)
        .slice(1)
        .map((b) => b.toString("hex")),
    ).toEqual(stored.map((b) => b.toString("hex")));
    expect(readBatchHeader(answer, 0)).toMatchObject({ baseOffset: 3, lastOffset: 4, recordCount: 1 });
    await log.close();
  });

  it("answers every key's latest record once, within the fetch size, however it is fetched (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.tuple(fc.nat(30), fc.boolean(), fc.nat(300)), { minLength: 1, maxLength: 12 }), {
          minLength: 1,
          maxLength: 25,
        }),
        fc.integer({ min: 1, max: 6000 }),
        fc.constantFrom("producer", "gzip"),
        async (writes, maxBytes, codec) => {
          const batches = writes.map((batch) =>
            batch.map(([k, tombstone, size]) => ({
              key: `k${k}`,
              value: tombstone ? null : "v".repeat(size),
            })),
          );
          const { log, freeze } = await viewOf(batches, { "compression.type": codec });
          const expected = [...freeze.offsets];
          const served: number[] = [];
          for (let from = 0; from < freeze.end; ) {
            const answer = await readLatest(log as unknown as HostedLog, freeze, from, maxBytes, NOW, noTail);
            const parts = batchesOf(answer);
            expect(parts.length).toBeGreaterThan(0);
            if (parts.length > 1) expect(answer.length).toBeLessThanOrEqual(maxBytes);
            const records = recordsOf(answer).filter(([offset]) => offset >= from);
            served.push(...records.map(([offset]) => offset));
            from = readBatchHeader(parts.at(-1)!, 0).lastOffset + 1;
          }
          expect(served).toEqual(expected);
          await log.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("the view's end under a lagging durable end (LatestViews)", () => {
  it("never passes the durable end; a key whose latest record is past it comes in the tail once committed", async () => {
    const hosted = await withKeyIndex(partitionLogOpener())({
      dir: join(root, "lagging"),
      config: { "cleanup.policy": "compact" },
      clock: new ManualClock(NOW),
    });
    const put = (key: string, value: string) =>
      hosted.append([{ key: Buffer.from(key), value: Buffer.from(value) }]);
    // Committed: k0, k1, k2 (offsets 0–2), k0 again (3). Appended, not yet committed (the store
    // lags): k1 again (4), k3 (5). Readers get the log through the durable view, ending at 4.
    const writes: [string, string][] = [
      ["k0", "a"],
      ["k1", "a"],
      ["k2", "a"],
      ["k0", "b"],
      ["k1", "c"],
      ["k3", "a"],
    ];
    for (const [key, value] of writes) await put(key, value);
    const durable = visibleUpTo(hosted, 4);
    const freeze = await new LatestViews().pinned(new Map(), "p", durable, 0);
    expect(freeze.end).toBe(4);
    // k1's latest (4) is past the durable end: its older record is superseded, the newer one is the tail's.
    expect([...freeze.offsets]).toEqual([2, 3]);
    const tailFrom: number[] = [];
    const served = await readLatest(durable, freeze, 0, 1 << 20, NOW, async (end) => {
      tailFrom.push(end);
      return (await durable.readBatches(end)).bytes;
    });
    expect(recordsOf(served)).toEqual([
      [2, "k2", "a"],
      [3, "k0", "b"],
    ]);
    // Nothing past the durable end is served while the commit lags…
    expect((await durable.readBatches(freeze.end)).bytes.length).toBe(0);
    // …and once it lands, the tail from the view's end carries k1's and k3's records.
    const committed = visibleUpTo(hosted, 6);
    expect(recordsOf((await committed.readBatches(freeze.end)).bytes)).toEqual([
      [4, "k1", "c"],
      [5, "k3", "a"],
    ]);
    expect(tailFrom).toEqual([]);
    await hosted.close();
  });
});
