import fs from "node:fs";
import path from "node:path";
import { encodeRecordBatch } from "@lastword/record-batch";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PartitionLog, RemoteSegmentSource } from "../src/index";
import { openLog, TestClock, tempDir } from "./helpers";
import { bareSteps } from "./model-steps";

// A plain in-memory model of the log: records by offset plus segment boundaries, following
// Kafka's roll and retention rules. The real log must agree with it after every operation.

const SEGMENT_BYTES = 300;
const SEGMENT_MS = 10_000;
const RETENTION_MS = 30_000;
const RETENTION_BYTES = 400;
/** The log's configs in every run: small enough that appends roll, retain and delete segments. */
const MODEL_CONFIG = {
  "segment.bytes": SEGMENT_BYTES,
  "segment.ms": SEGMENT_MS,
  "retention.ms": RETENTION_MS,
  "retention.bytes": RETENTION_BYTES,
  "file.delete.delay.ms": 0,
};

interface ModelRecord {
  offset: number;
  key: string;
  value: string | null;
  timestamp: number;
}
interface ModelSegment {
  base: number;
  next: number;
  size: number;
  records: number;
  /** Records with a null value (every model record has a key). */
  tombstones: number;
  firstTs: number;
  maxTs: number;
}

class LogModel {
  records: ModelRecord[] = [];
  segments: ModelSegment[] = [
    { base: 0, next: 0, size: 0, records: 0, tombstones: 0, firstTs: -1, maxTs: -1 },
  ];
  start = 0;

  get end(): number {
    return this.active.next;
  }
  get active(): ModelSegment {
    return this.segments.at(-1)!;
  }

  roll(): void {
    if (this.active.size > 0)
      this.segments.push({
        base: this.end,
        next: this.end,
        size: 0,
        records: 0,
        tombstones: 0,
        firstTs: -1,
        maxTs: -1,
      });
  }

  append(batch: { key: string; value: string | null; timestamp: number }[], size: number): void {
    const maxTs = Math.max(...batch.map((r) => r.timestamp));
    const active = this.active;
    if (active.size + size > SEGMENT_BYTES || (active.size > 0 && maxTs - active.firstTs > SEGMENT_MS))
      this.roll();
    const segment = this.active;
    for (const record of batch) this.records.push({ offset: segment.next++, ...record });
    if (segment.size === 0) segment.firstTs = maxTs;
    segment.size += size;
    segment.records += batch.length;
    segment.tombstones += batch.filter((r) => r.value === null).length;
    segment.maxTs = Math.max(segment.maxTs, maxTs);
  }

  retention(now: number): number[] {
    const deleted: number[] = [];
    let excess: number | null = null;
    const rules = [
      (_s: ModelSegment, next?: ModelSegment) => next !== undefined && next.base <= this.start,
      (s: ModelSegment) => {
        excess ??= this.segments.reduce((sum, x) => sum + x.size, 0) - RETENTION_BYTES;
        if (excess - s.size < 0) return false;
        excess -= s.size;
        return true;
      },
      (s: ModelSegment) => now - s.maxTs > RETENTION_MS,
    ];
    for (const rule of rules) {
      const doomed: ModelSegment[] = [];
      for (const [i, segment] of this.segments.entries()) {
        const next = this.segments[i + 1];
        if ((!next && segment.size === 0) || !rule(segment, next)) break;
        doomed.push(segment);
      }
      if (doomed.length === 0) continue;
      if (doomed.length === this.segments.length) this.roll();
      this.segments = this.segments.slice(doomed.length);
      deleted.push(...doomed.map((s) => s.base));
      this.start = Math.max(this.start, this.segments[0]!.base);
    }
    return deleted;
  }
}

type Op =
  | { kind: "append"; batch: { key: string; value: string | null; dt: number }[] }
  | { kind: "roll" }
  | { kind: "reopen" }
  | { kind: "advance"; ms: number }
  | { kind: "retention" }
  | { kind: "deleteBefore"; back: number }
  | { kind: "maybeRoll" }
  | { kind: "evict"; pick: number }
  | { kind: "read"; back: number; maxRecords: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      batch: fc.array(
        fc.record({
          key: fc.constantFrom("a", "b", "c", "d"),
          value: fc.option(fc.string({ maxLength: 40 }), { nil: null }),
          dt: fc.integer({ min: -2_000, max: 500 }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  },
  ...bareSteps({ roll: 1, reopen: 1 }),
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 15_000 }) }),
  },
  ...bareSteps({ retention: 1 }),
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("deleteBefore" as const),
      back: fc.integer({ min: -1, max: 6 }),
    }),
  },
  ...bareSteps({ maybeRoll: 1 }),
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("evict" as const), pick: fc.nat({ max: 20 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("read" as const),
      back: fc.integer({ min: -1, max: 12 }),
      maxRecords: fc.integer({ min: 1, max: 20 }),
    }),
  },
);

function assertSameShape(log: PartitionLog, model: LogModel): void {
  expect(log.logEndOffset).toBe(model.end);
  expect(log.logStartOffset).toBe(model.start);
  expect(
    log
      .segments()
      .map((s) => [s.baseOffset, s.lastOffset + 1, s.sizeBytes, s.records, s.tombstones, s.active]),
  ).toEqual(
    model.segments.map((s, i) => [
      s.base,
      s.next,
      s.size,
      s.records,
      s.tombstones,
      i === model.segments.length - 1,
    ]),
  );
}

/** A remote tier in memory: what a segment's file held when it was evicted, by ref. */
class MemoryTier implements RemoteSegmentSource {
  readonly objects = new Map<string, Buffer>();
  fetches = 0;

  async fetch(ref: string): Promise<Uint8Array> {
    this.fetches++;
    const bytes = this.objects.get(ref);
    if (!bytes) throw new Error(`no object ${ref}`);
    return bytes;
  }

  /** Keeps the segment file's bytes, as an upload would, and names them. */
  keep(dir: string, baseOffset: number): string {
    const ref = `segments/${baseOffset}-${this.objects.size}`;
    this.objects.set(ref, fs.readFileSync(path.join(dir, `${String(baseOffset).padStart(20, "0")}.log`)));
    return ref;
  }
}

interface ModelState {
  log: PartitionLog;
  model: LogModel;
  clock: TestClock;
  dir: string;
  tier: MemoryTier;
}

async function step(state: ModelState, op: Op) {
  const { model, clock } = state;
  const config = MODEL_CONFIG;
  switch (op.kind) {
    case "append": {
      const batch = op.batch.map((r) => ({
        key: r.key,
        value: r.value,
        timestamp: Math.max(0, clock.now() + r.dt),
      }));
      const input = batch.map((r) => ({
        key: Buffer.from(r.key),
        value: r.value === null ? null : Buffer.from(r.value),
        timestamp: r.timestamp,
      }));
      const size = encodeRecordBatch(input, { baseOffset: 0, appendTimeMs: 0 }).length;
      expect(await state.log.append(input)).toEqual({
        baseOffset: model.end,
        lastOffset: model.end + batch.length - 1,
      });
      model.append(batch, size);
      break;
    }
    case "roll":
      await state.log.roll();
      model.roll();
      break;
    case "reopen":
      await state.log.close();
      state.log = await openLog({ dir: state.dir, clock, config, remote: state.tier });
      break;
    case "evict": {
      // Any closed segment, local or already evicted: only a local one is evicted (again).
      const closed = state.log.segments().filter((s) => !s.active);
      const target = closed[op.pick % Math.max(1, closed.length)];
      if (!target) break;
      const ref = target.remote ? "unused" : state.tier.keep(state.dir, target.baseOffset);
      expect(await state.log.evictSegment(target.baseOffset, ref)).toBe(!target.remote);
      expect(state.log.segments().find((s) => s.baseOffset === target.baseOffset)?.remote).toBe(true);
      break;
    }
    case "advance":
      clock.advance(op.ms);
      break;
    case "retention": {
      const result = await state.log.applyRetention();
      expect(result.deleted.map((s) => s.baseOffset)).toEqual(model.retention(clock.now()));
      break;
    }
    case "deleteBefore": {
      const target = model.end - op.back;
      if (target < 0 || target > model.end) {
        await expect(state.log.deleteRecordsBefore(target)).rejects.toMatchObject({
          code: "OFFSET_OUT_OF_RANGE",
        });
      } else {
        await state.log.deleteRecordsBefore(target);
        model.start = Math.max(model.start, target);
      }
      break;
    }
    case "maybeRoll": {
      const active = model.active;
      const due = active.size > 0 && clock.now() - active.firstTs > SEGMENT_MS;
      expect(await state.log.maybeRoll()).toBe(due);
      if (due) model.roll();
      break;
    }
    case "read": {
      const from = model.end - op.back;
      if (from < model.start || from > model.end) {
        await expect(state.log.read(from)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
        break;
      }
      const got = await state.log.read(from, { maxRecords: op.maxRecords });
      const want = model.records.filter((r) => r.offset >= from).slice(0, op.maxRecords);
      expect(
        got.map((r) => [
          r.offset,
          r.key?.toString(),
          r.value === null ? null : r.value.toString(),
          r.timestamp,
        ]),
      ).toEqual(want.map((r) => [r.offset, r.key, r.value, r.timestamp]));
      break;
    }
  }
  assertSameShape(state.log, model);
}

describe("model", () => {
  it("1. random append/roll/reopen/read/retention/deleteRecords/evict sequences agree with the model", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 45, size: "max" }), async (ops) => {
        const dir = tempDir();
        const clock = new TestClock(100_000);
        const tier = new MemoryTier();
        const state: ModelState = {
          log: await openLog({ dir, clock, config: MODEL_CONFIG, remote: tier }),
          model: new LogModel(),
          clock,
          dir,
          tier,
        };
        for (const op of ops) await step(state, op);
        await state.log.close();
      }),
      { numRuns: 50 },
    );
  });
});
