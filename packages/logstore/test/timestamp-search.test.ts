import fs from "node:fs";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PartitionLog } from "../src/index";
import { TimeIndex } from "../src/time-index";
import { openLog, replayLog, TestClock, tempDir } from "./helpers";
import { bareSteps } from "./model-steps";

// ListOffsets by timestamp through the time index (Kafka's LogSegment.findOffsetByTimestamp): the
// first record in offset order, between the log start and the high watermark, whose timestamp is at
// or after the one asked for. Numbered scenarios, then a fast-check property against a linear scan.

afterEach(() => {
  vi.restoreAllMocks();
});

/** A record whose batch, alone, is about `bytes` long: a few of them cross an index interval. */
function sized(key: string, timestamp: number, bytes = 1_000) {
  return { key: Buffer.from(key), value: Buffer.alloc(bytes, key.charCodeAt(0)), timestamp };
}

describe("TimeIndex.lookup", () => {
  it("1. names the last entry at or before the timestamp, the base offset when none is", () => {
    const index = new TimeIndex(100, 10);
    for (const [timestamp, offset] of [
      [1_000, 104],
      [2_000, 109],
      [3_000, 120],
    ] as const) {
      index.maybeAppend(timestamp, offset);
    }
    expect([999, 1_000, 1_999, 2_000, 2_500, 3_000, 9_999].map((t) => index.lookup(t))).toEqual([
      100, 104, 104, 109, 109, 120, 120,
    ]);
    expect(new TimeIndex(7, 10).lookup(5)).toBe(7);
  });
});

describe("PartitionLog.offsetForTimestamp", () => {
  it("2. the first record at or after the time in offset order, with its own timestamp; null when none is that recent", async () => {
    const log = await openLog();
    await log.append([sized("a", 1_000, 10), sized("b", 5_000, 10)]);
    await log.append([sized("c", 3_000, 10)]);
    await log.append([sized("d", 4_000, 10), sized("e", 6_000, 10)]);
    expect(await log.offsetForTimestamp(0)).toEqual({ offset: 0, timestamp: 1_000 });
    // Timestamps need not grow: 3,000 at offset 2 comes after 5,000 at offset 1, which is first.
    expect(await log.offsetForTimestamp(2_000)).toEqual({ offset: 1, timestamp: 5_000 });
    expect(await log.offsetForTimestamp(5_500)).toEqual({ offset: 4, timestamp: 6_000 });
    expect(await log.offsetForTimestamp(6_000)).toEqual({ offset: 4, timestamp: 6_000 });
    expect(await log.offsetForTimestamp(6_001)).toBeNull();
    expect(await (await openLog()).offsetForTimestamp(0)).toBeNull();
  });

  it("3. reads only the batches from the time index's entry on, not the segment before it", async () => {
    const log = await openLog({ config: { "segment.bytes": 8 << 20 } });
    for (let i = 0; i < 250; i++) await log.append([sized(`k${i}`, 10_000 + i, 4_000)]);
    await log.roll();
    const segmentBytes = log.segments()[0]!.sizeBytes;
    const readSync = vi.spyOn(fs, "readSync");
    expect(await log.offsetForTimestamp(10_240)).toEqual({ offset: 240, timestamp: 10_240 });
    const bytesRead = readSync.mock.results.reduce((sum, r) => sum + (r.value as number), 0);
    // The headers from the index entry on plus the one batch, against a ~1 MB segment.
    expect(segmentBytes).toBeGreaterThan(1_000_000);
    expect(bytesRead).toBeGreaterThan(0);
    expect(bytesRead).toBeLessThan(40_000);
  });

  it("4. skips what lies below the log start offset, also inside the segment that holds it", async () => {
    const log = await openLog({ config: { "segment.bytes": 6_000 } });
    for (let i = 0; i < 20; i++) await log.append([sized(`k${i}`, 1_000 + i * 10)]);
    await log.deleteRecordsBefore(7);
    expect(log.segments()[0]!.baseOffset).toBeLessThan(7);
    expect(await log.offsetForTimestamp(0)).toEqual({ offset: 7, timestamp: 1_070 });
    expect(await log.offsetForTimestamp(1_030)).toEqual({ offset: 7, timestamp: 1_070 });
    expect(await log.offsetForTimestamp(1_075)).toEqual({ offset: 8, timestamp: 1_080 });
  });

  it("5. a LogAppendTime topic answers by append time; a compressed batch is searched inside", async () => {
    const clock = new TestClock(50_000);
    const appendTime = await openLog({ clock, config: { "message.timestamp.type": "LogAppendTime" } });
    await appendTime.append([sized("a", 1, 10)]);
    clock.advance(100);
    await appendTime.append([sized("b", 1, 10), sized("c", 1, 10)]);
    expect(await appendTime.offsetForTimestamp(50_050)).toEqual({ offset: 1, timestamp: 50_100 });

    const gzip = await openLog({ config: { "compression.type": "gzip" } });
    await gzip.append([sized("a", 100), sized("b", 200), sized("c", 300)]);
    expect(await gzip.offsetForTimestamp(150)).toEqual({ offset: 1, timestamp: 200 });
  });

  it("6. the indexes rebuilt on open give the same answers", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "segment.bytes": 20_000 } });
    for (let i = 0; i < 60; i++) await log.append([sized(`k${i}`, 5_000 + ((i * 37) % 60) * 100)]);
    const targets = [0, 5_000, 6_150, 9_900, 10_900];
    const before = await Promise.all(targets.map((t) => log.offsetForTimestamp(t)));
    await log.close();
    const reopened = await openLog({ dir, config: { "segment.bytes": 20_000 } });
    expect(await Promise.all(targets.map((t) => reopened.offsetForTimestamp(t)))).toEqual(before);
    expect(before.every((found) => found !== null)).toBe(true);
  });
});

/** The model: every record in offset order; the search is a linear scan of it. */
interface ModelRecord {
  offset: number;
  timestamp: number;
}

function linearScan(records: readonly ModelRecord[], from: number, target: number): ModelRecord | null {
  return records.find((r) => r.offset >= from && r.timestamp >= target) ?? null;
}

type Op =
  | { kind: "append"; records: { key: number; dt: number; bytes: number }[] }
  | { kind: "advance"; ms: number }
  | { kind: "roll" }
  | { kind: "reopen" }
  | { kind: "clean" }
  | { kind: "deleteBefore"; fraction: number }
  | { kind: "search"; fraction: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      records: fc.array(
        fc.record({
          key: fc.integer({ min: 0, max: 7 }),
          dt: fc.integer({ min: -3_000, max: 3_000 }),
          bytes: fc.integer({ min: 0, max: 1_500 }),
        }),
        { minLength: 1, maxLength: 6 },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 2_000 }) }),
  },
  ...bareSteps({ roll: 1, reopen: 1, clean: 1 }),
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("deleteBefore" as const),
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("search" as const),
      fraction: fc.double({ min: -0.1, max: 1.1, noNaN: true }),
    }),
  },
);

interface RunState {
  dir: string;
  config: Record<string, string | number>;
  clock: TestClock;
  log: PartitionLog;
  model: ModelRecord[];
}

async function apply(state: RunState, op: Op): Promise<void> {
  const { clock } = state;
  switch (op.kind) {
    case "append": {
      const appendTime = state.config["message.timestamp.type"] === "LogAppendTime";
      const input = op.records.map((r) => sized(`k${r.key}`, Math.max(0, clock.now() + r.dt), r.bytes));
      const { baseOffset } = await state.log.append(input);
      for (const [i, r] of input.entries()) {
        state.model.push({ offset: baseOffset + i, timestamp: appendTime ? clock.now() : r.timestamp });
      }
      return;
    }
    case "advance":
      clock.advance(op.ms);
      return;
    case "roll":
      await state.log.roll();
      return;
    case "reopen":
      await state.log.close();
      state.log = await openLog({ dir: state.dir, config: state.config, clock });
      return;
    case "clean":
      await state.log.clean({ force: true });
      // What the cleaner keeps is its own tests' business: from here the model is what the log reads.
      state.model = (await replayLog(state.log)).map((r) => ({ offset: r.offset, timestamp: r.timestamp }));
      return;
    case "deleteBefore": {
      const { logStartOffset, highWatermark } = state.log;
      await state.log.deleteRecordsBefore(
        logStartOffset + Math.floor((highWatermark - logStartOffset) * op.fraction),
      );
      return;
    }
    case "search": {
      const stamps = state.model.map((r) => r.timestamp);
      const low = Math.min(clock.now(), ...stamps) - 10;
      const high = Math.max(clock.now(), ...stamps) + 10;
      const target = Math.round(low + (high - low) * op.fraction);
      const expected = linearScan(state.model, state.log.logStartOffset, target);
      expect(await state.log.offsetForTimestamp(target), `target ${target}`).toEqual(expected);
    }
  }
}

describe("property: the indexed search agrees with a linear scan", () => {
  it("7. over random appends (timestamps out of order, index intervals crossed), rolls, reopens, cleaner passes and deleteRecords", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("CreateTime", "LogAppendTime"),
        fc.constantFrom(10_000, 20_000),
        fc.array(opArb, { minLength: 1, maxLength: 40 }),
        async (timestampType, segmentBytes, ops) => {
          const config = {
            "cleanup.policy": "compact,delete",
            "segment.bytes": segmentBytes,
            "message.timestamp.type": timestampType,
            "delete.retention.ms": 0,
            "min.cleanable.dirty.ratio": 0.01,
            "file.delete.delay.ms": 0,
          };
          const dir = tempDir();
          const clock = new TestClock();
          const state: RunState = {
            dir,
            config,
            clock,
            log: await openLog({ dir, config, clock }),
            model: [],
          };
          for (const op of ops) await apply(state, op);
          // Every offset and time once more at the end, so each run checks a full sweep.
          for (const { timestamp } of state.model) {
            const expected = linearScan(state.model, state.log.logStartOffset, timestamp);
            expect(await state.log.offsetForTimestamp(timestamp), `sweep ${timestamp}`).toEqual(expected);
          }
          await state.log.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
