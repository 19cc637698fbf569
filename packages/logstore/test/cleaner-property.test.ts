import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LogRecord, PartitionLog } from "../src/index";
import { crashRuns } from "./crash-runs";
import { kv, replayLog, TestClock, tempDir, text } from "./helpers";
import { bareSteps } from "./model-steps";

// Property: whatever the workload (keys, tombstones, empty values), the clock and the schedule of
// passes, cleaning never changes what a replay from the log start yields, keeps every live key's
// latest record at its offset, and only ever removes offsets; a pass's `removedTombstones` are
// exactly the tombstones it made disappear, with their keys and timestamps.
//
// Each run walks up to 45 operations over a random setup (a new seed every time the suite runs):
// 40 in `npm test`, fast-check's default 100 with the full crash campaigns under
// LASTWORD_CRASH_RUNS=full (nightly, after touching the cleaner or its swap).
const RUNS = crashRuns({ full: 100, quick: 40 });

type Op =
  | { kind: "append"; records: { key: number; value: string | null }[] }
  | { kind: "advance"; ms: number }
  | { kind: "roll" }
  | { kind: "clean"; force: boolean }
  | { kind: "reopen" };

const value = fc.oneof(
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 2, arbitrary: fc.constant(null) },
);

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      records: fc.array(fc.record({ key: fc.nat(7), value }), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.nat(4_000) }) },
  ...bareSteps({ roll: 2 }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("clean" as const), force: fc.boolean() }) },
  ...bareSteps({ reopen: 1 }),
);

const setup = fc.record({
  segmentBytes: fc.integer({ min: 150, max: 2_000 }),
  deleteRetentionMs: fc.nat(6_000),
  minCompactionLagMs: fc.nat(3_000),
  maxCompactionLagMs: fc.integer({ min: 3_000, max: 20_000 }),
  minCleanableDirtyRatio: fc.double({ min: 0, max: 0.9, noNaN: true }),
  // From one usable map entry up to plenty: small budgets force partial passes.
  dedupeBufferBytes: fc.oneof(fc.integer({ min: 48, max: 24 * 16 }), fc.constant(1 << 20)),
});

interface Latest {
  offset: number;
  value: string | null;
}

/** Checks the three invariants; returns the offsets now present. */
function check(records: LogRecord[], model: Map<string, Latest>, allowed: Set<number>): Set<number> {
  const state = new Map<string, string>();
  let previous = -1;
  for (const record of records) {
    expect(record.offset).toBeGreaterThan(previous);
    previous = record.offset;
    expect(allowed.has(record.offset)).toBe(true);
    const key = text(record.key)!;
    if (record.value === null) state.delete(key);
    else state.set(key, text(record.value)!);
  }
  const live = new Map([...model].filter(([, l]) => l.value !== null).map(([k, l]) => [k, l.value!]));
  expect(state).toEqual(live);
  const byOffset = new Map(records.map((r) => [r.offset, r]));
  for (const [key, latest] of model) {
    if (latest.value === null) continue;
    const record = byOffset.get(latest.offset);
    expect(record && text(record.key)).toBe(key);
    expect(record && text(record.value)).toBe(latest.value);
  }
  return new Set(records.map((r) => r.offset));
}

/** Runs a pass; its removed tombstones must be exactly the tombstones that left the replay. */
async function cleanAndCheckTombstones(
  log: PartitionLog,
  force: boolean,
  written: Map<number, { key: string; value: string | null; timestamp: number }>,
): Promise<LogRecord[]> {
  const tombstonesBefore = new Set(
    (await replayLog(log)).filter((r) => r.value === null).map((r) => r.offset),
  );
  const result = await log.clean({ force });
  const after = await replayLog(log);
  const present = new Set(after.map((r) => r.offset));
  const gone = [...tombstonesBefore].filter((offset) => !present.has(offset));
  expect(result.removedTombstones.map((t) => t.offset)).toEqual(gone);
  expect(result.tombstonesRemoved).toBe(result.removedTombstones.length);
  // Per-segment tombstone counts stay exact through the swaps (compact only: every record is replayed).
  const segments = log.segments();
  expect(segments.map((s) => s.tombstones)).toEqual(
    segments.map(
      (s) =>
        after.filter((r) => r.offset >= s.baseOffset && r.offset <= s.lastOffset && r.value === null).length,
    ),
  );
  for (const t of result.removedTombstones) {
    const record = written.get(t.offset)!;
    expect([text(t.key), t.timestamp]).toEqual([record.key, record.timestamp]);
  }
  return after;
}

describe("cleaner property", () => {
  it("replay equals the model, latest records stay at their offsets, offsets only disappear", async () => {
    await fc.assert(
      fc.asyncProperty(setup, fc.array(op, { minLength: 1, maxLength: 45 }), async (s, ops) => {
        const clock = new TestClock();
        const dir = tempDir();
        const options = {
          dir,
          clock,
          dedupeBufferBytes: s.dedupeBufferBytes,
          config: {
            "cleanup.policy": "compact",
            "segment.bytes": s.segmentBytes,
            "delete.retention.ms": s.deleteRetentionMs,
            "min.compaction.lag.ms": s.minCompactionLagMs,
            "max.compaction.lag.ms": s.maxCompactionLagMs,
            "min.cleanable.dirty.ratio": s.minCleanableDirtyRatio,
          },
        };
        let log = await PartitionLog.open(options);
        const model = new Map<string, Latest>();
        let present = new Set<number>();
        const written = new Map<number, { key: string; value: string | null; timestamp: number }>();
        try {
          for (const o of ops) {
            if (o.kind === "append") {
              const records = o.records.map((r) => kv(`k${r.key}`, r.value, clock.now()));
              const { baseOffset } = await log.append(records);
              o.records.forEach((r, i) => {
                model.set(`k${r.key}`, { offset: baseOffset + i, value: r.value });
                written.set(baseOffset + i, { key: `k${r.key}`, value: r.value, timestamp: clock.now() });
                present.add(baseOffset + i);
              });
            } else if (o.kind === "advance") clock.advance(o.ms);
            else if (o.kind === "roll") await log.roll();
            else if (o.kind === "reopen") {
              await log.close();
              log = await PartitionLog.open(options);
            } else {
              present = check(await cleanAndCheckTombstones(log, o.force, written), model, present);
            }
          }
          // Drain: roll, age past min lag, clean until nothing is dirty, pass every horizon, clean again.
          await log.roll();
          clock.advance(1_000_000);
          for (let i = 0; i < 40 && log.cleanableStats().dirtyBytes > 0; i++)
            await cleanAndCheckTombstones(log, true, written);
          clock.advance(1_000_000);
          const records = await cleanAndCheckTombstones(log, true, written);
          check(records, model, present);
          // Fully cleaned and past every horizon: exactly one record per live key, no tombstones.
          expect(records.every((r) => r.value !== null)).toBe(true);
          expect(records.length).toBe([...model.values()].filter((l) => l.value !== null).length);
        } finally {
          await log.close();
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
