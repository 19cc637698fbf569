import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, PartitionLog } from "@lastword/logstore";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { KeyIndexedLog } from "./indexed-log";
import type { KeyIndex } from "./key-index";
import { decodeKeyIndexSnapshot } from "./key-index-snapshot";

const root = mkdtempSync(join(tmpdir(), "key-index-snapshot-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

const KEYS = 12;
const keyOf = (k: number) => Buffer.from(`key-${k}`);
// Compacted and deletable (deleteRecords moves the start), every tombstone removable at once.
const CONFIG = {
  "cleanup.policy": "compact,delete",
  "delete.retention.ms": 0,
  "min.cleanable.dirty.ratio": 0.01,
  "min.compaction.lag.ms": 0,
  "file.delete.delay.ms": 0,
};

async function openLog(clock = new ManualClock(1_000_000)) {
  const log = await PartitionLog.open({ dir: join(root, `log-${dirs++}`), config: CONFIG, clock });
  return { log, indexed: new KeyIndexedLog(log), clock };
}

async function append(indexed: KeyIndexedLog, writes: readonly [number, boolean][]) {
  await indexed.append(
    writes.map(([k, tombstone]) => ({ key: keyOf(k), value: tombstone ? null : Buffer.from(`v${k}`) })),
  );
}

/** Everything the key lookups, `.latest` and snapshots read of an index. */
function answers(index: KeyIndex) {
  const frozen = index.freeze();
  return {
    keys: Array.from({ length: KEYS }, (_, k) => index.get(keyOf(k)) ?? null),
    latest: [...frozen.latestOffsets()],
    live: [...frozen.liveOffsets()],
  };
}

type Step =
  | { op: "append"; writes: [number, boolean][] }
  | { op: "roll" }
  | { op: "snapshot" }
  | { op: "clean" }
  | { op: "deleteRecords"; fraction: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("append" as const),
      writes: fc.array(fc.tuple(fc.nat(KEYS - 1), fc.boolean()), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ op: "roll" as const }) },
  { weight: 2, arbitrary: fc.constant({ op: "snapshot" as const }) },
  { weight: 2, arbitrary: fc.constant({ op: "clean" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("deleteRecords" as const),
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
);

describe("a persisted key index", () => {
  it("seeds an index that answers exactly as one rebuilt by a scan, or is refused, across rolls, passes and deleteRecords (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const { log, indexed, clock } = await openLog();
        let snapshot: Buffer | null = null;
        // Whether anything since the snapshot may have removed records below its end.
        let rewrittenSince = false;
        try {
          for (const s of steps) {
            if (s.op === "append") await append(indexed, s.writes);
            else if (s.op === "roll") await log.roll();
            else if (s.op === "snapshot") {
              snapshot = (await indexed.snapshot()).bytes;
              rewrittenSince = false;
            } else if (s.op === "clean") {
              clock.advance(10);
              if ((await indexed.clean({ force: true })).cleaned) rewrittenSince = true;
            } else {
              await log.deleteRecordsBefore(Math.floor(s.fraction * log.highWatermark));
            }
          }
          if (snapshot === null) snapshot = (await indexed.snapshot()).bytes;
          const rebuilt = new KeyIndexedLog(log);
          await rebuilt.rebuildIndex();
          const seeded = new KeyIndexedLog(log);
          const outcome = await seeded.seedIndex(snapshot);
          const header = decodeKeyIndexSnapshot(snapshot);
          // Nothing removed since and the start still below the snapshot's active segment: it must be used.
          if (!rewrittenSince && log.logStartOffset <= header.active.baseOffset)
            expect(outcome).toMatchObject({ seeded: true });
          if (outcome.seeded) expect(answers(seeded.index)).toEqual(answers(rebuilt.index));
          // The live index, which followed every append, answers as the rebuilt one where the start did not move.
          if (log.logStartOffset === 0) expect(answers(indexed.index)).toEqual(answers(rebuilt.index));
        } finally {
          await log.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it("is refused when corrupt, cut short, of another version or past the log's end, leaving the index as it was", async () => {
    const { log, indexed } = await openLog();
    await append(indexed, [
      [1, false],
      [2, false],
    ]);
    await log.roll();
    await append(indexed, [[3, false]]);
    const good = (await indexed.snapshot()).bytes;
    await log.close();
    // A log holding only the first two records: the snapshot covers offsets it never had.
    const short = await openLog();
    await append(short.indexed, [
      [1, false],
      [2, false],
    ]);
    await short.log.roll();
    const before = answers(short.indexed.index);
    const flipped = Buffer.from(good);
    flipped[flipped.length >> 1]! ^= 0xff;
    const otherVersion = Buffer.from(good);
    otherVersion.writeUInt32LE(99, 4);
    const cases: [Buffer, RegExp][] = [
      [flipped, /unreadable: checksum mismatch/],
      [good.subarray(0, good.length - 7), /unreadable/],
      [otherVersion, /unreadable/],
      [Buffer.from("not an index at all, not at all"), /unreadable: not a key index snapshot/],
      [good, /past the log end 2/],
    ];
    for (const [bytes, reason] of cases) {
      const outcome = await short.indexed.seedIndex(bytes);
      expect(outcome.seeded).toBe(false);
      expect(outcome.seeded ? "" : outcome.reason).toMatch(reason);
      expect(answers(short.indexed.index)).toEqual(before);
    }
    await short.log.close();
  });

  it("is not taken while a pass runs (its segments and the index disagree until the rebuild ends)", async () => {
    const { log, indexed, clock } = await openLog();
    await append(indexed, [
      [1, false],
      [1, true],
    ]);
    await log.roll();
    clock.advance(10);
    const pass = indexed.clean({ force: true });
    await expect(indexed.snapshot()).rejects.toThrow(/a pass is under way/);
    expect((await pass).cleaned).toBe(true);
    expect(decodeKeyIndexSnapshot((await indexed.snapshot()).bytes).coveredEnd).toBe(2);
    await log.close();
  });

  it("is refused after a pass removed a record it reflects, and used again once retaken", async () => {
    const { log, indexed, clock } = await openLog();
    await append(indexed, [
      [1, false],
      [2, false],
    ]);
    await append(indexed, [[1, true]]);
    await log.roll();
    await append(indexed, [[5, false]]);
    const before = (await indexed.snapshot()).bytes;
    // Two passes: the first cleans (dropping key 1's value), the second removes its tombstone.
    for (let i = 0; i < 2; i++) {
      clock.advance(10);
      await log.roll();
      await indexed.clean({ force: true });
    }
    const rebuilt = new KeyIndexedLog(log);
    await rebuilt.rebuildIndex();
    const stale = new KeyIndexedLog(log);
    expect(await stale.seedIndex(before)).toMatchObject({
      seeded: false,
      reason: /a pass or a rewrite since/,
    });
    const fresh = new KeyIndexedLog(log);
    expect(await fresh.seedIndex((await indexed.snapshot()).bytes)).toMatchObject({ seeded: true });
    expect(answers(fresh.index)).toEqual(answers(rebuilt.index));
    expect(fresh.index.get(keyOf(1))).toBe(rebuilt.index.get(keyOf(1)) ?? undefined);
    await log.close();
  });
});
