import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type LogStoreError,
  PartitionLog,
  type ProducerAppend,
  type ProducerEntry,
  ProducerStateManager,
} from "../src/index";
import {
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  listSnapshotOffsets,
  snapshotFileName,
} from "../src/producer-state-snapshot";
import { batchesOnDisk, codeOf, kv, openLog, replayLog, TestClock, tempDir } from "./helpers";
import { bareSteps } from "./model-steps";

const compact = (extra: Record<string, string | number> = {}) => ({ "cleanup.policy": "compact", ...extra });
const DAY_MS = 24 * 3600 * 1000;

function records(count: number, tag: string) {
  return Array.from({ length: count }, (_, i) => kv(`k${i}`, `${tag}-${i}`));
}

function producer(producerId: number, producerEpoch: number, baseSequence: number): ProducerAppend {
  return { producerId, producerEpoch, baseSequence };
}

/** What a process killed right now would leave: the files as they are (appends are fsynced). */
function crashImage(dir: string): string {
  const copy = tempDir();
  for (const name of fs.readdirSync(dir)) fs.copyFileSync(path.join(dir, name), path.join(copy, name));
  return copy;
}

/** Producer ids of every batch header in the segment files (whatever their records). */
function producerIdsOnDisk(dir: string): number[] {
  return batchesOnDisk(dir).map((batch) => batch.header.producerId);
}

describe("producer state (idempotent appends)", () => {
  it("1. a retry of any of the last five batches answers its first offsets and writes nothing", async () => {
    const log = await openLog({ config: compact() });
    const firsts = [];
    for (let b = 0; b < 6; b++)
      firsts.push(await log.append(records(3, `b${b}`), { producer: producer(7, 0, b * 3) }));
    const end = log.logEndOffset;
    for (let b = 1; b < 6; b++) {
      const retry = await log.append(records(3, "retry"), { producer: producer(7, 0, b * 3) });
      expect(retry).toEqual({ ...firsts[b], duplicate: true });
    }
    expect(log.logEndOffset).toBe(end);
    // The sixth batch back is out of the window: its sequence no longer follows, so it is refused.
    expect(await codeOf(log.append(records(3, "old"), { producer: producer(7, 0, 0) }))).toBe(
      "OUT_OF_ORDER_SEQUENCE",
    );
    expect((await replayLog(log)).map((r) => r.value?.toString())).not.toContain("retry-0");
  });

  it("2. a sequence gap is OUT_OF_ORDER_SEQUENCE and writes nothing; an unknown producer may start anywhere", async () => {
    const log = await openLog({ config: compact() });
    await log.append(records(2, "a"), { producer: producer(1, 0, 40) });
    expect(await codeOf(log.append(records(1, "gap"), { producer: producer(1, 0, 43) }))).toBe(
      "OUT_OF_ORDER_SEQUENCE",
    );
    expect(log.logEndOffset).toBe(2);
    expect(await log.append(records(1, "next"), { producer: producer(1, 0, 42) })).toEqual({
      baseOffset: 2,
      lastOffset: 2,
    });
  });

  it("3. an older epoch is INVALID_PRODUCER_EPOCH; a new epoch must start at 0 and fences the old one", async () => {
    const log = await openLog({ config: compact() });
    await log.append(records(1, "e0"), { producer: producer(5, 0, 0) });
    expect(await codeOf(log.append(records(1, "e1"), { producer: producer(5, 1, 3) }))).toBe(
      "OUT_OF_ORDER_SEQUENCE",
    );
    await log.append(records(1, "e1"), { producer: producer(5, 1, 0) });
    expect(await codeOf(log.append(records(1, "e0"), { producer: producer(5, 0, 1) }))).toBe(
      "INVALID_PRODUCER_EPOCH",
    );
    // The epoch-0 batch is no longer a duplicate either: the epoch replaced its batches.
    expect(await codeOf(log.append(records(1, "e0"), { producer: producer(5, 0, 0) }))).toBe(
      "INVALID_PRODUCER_EPOCH",
    );
    expect(await codeOf(log.append(records(1, "x"), { producer: producer(-1, 0, 0) }))).toBe(
      "INVALID_RECORD",
    );
  });

  it("4. the state survives a close (snapshot), a crash (snapshot + the log after it) and a move to a new owner", async () => {
    const clock = new TestClock();
    const dir = tempDir();
    const log = await openLog({ dir, clock, config: compact({ "segment.bytes": 400 }) });
    for (let b = 0; b < 12; b++)
      await log.append(records(2, `b${b}`), { producer: producer(b % 3, 0, Math.floor(b / 3) * 2) });
    const expected = log.producerState.entries();
    // Crash: no close, the newest snapshot is from the last roll; the tail after it is replayed.
    const crashed = await openLog({ dir: crashImage(dir), clock, config: compact({ "segment.bytes": 400 }) });
    expect(crashed.producerRecovery.snapshotOffset).not.toBeNull();
    expect(crashed.producerRecovery.batchesReplayed).toBeGreaterThan(0);
    expect(crashed.producerState.entries()).toEqual(expected);
    const retry = await crashed.append(records(2, "retry"), { producer: producer(2, 0, 6) });
    expect(retry).toMatchObject({ duplicate: true, baseOffset: 22 });
    await log.close();
    const reopened = await openLog({ dir, clock, config: compact({ "segment.bytes": 400 }) });
    expect(reopened.producerRecovery).toMatchObject({ snapshotOffset: 24, batchesReplayed: 0 });
    expect(reopened.producerState.entries()).toEqual(expected);
  });

  it("5. an unreadable newest snapshot is discarded: the older one plus the log rebuild the same state", async () => {
    const dir = tempDir();
    const clock = new TestClock();
    const log = await openLog({ dir, clock, config: compact() });
    for (let b = 0; b < 4; b++) await log.append(records(1, `b${b}`), { producer: producer(9, 0, b) });
    await log.roll();
    for (let b = 4; b < 8; b++) await log.append(records(1, `b${b}`), { producer: producer(9, 0, b) });
    const expected = log.producerState.entries();
    await log.close();
    const [older, newest] = listSnapshotOffsets(dir);
    expect([older, newest]).toEqual([4, 8]);
    fs.writeFileSync(path.join(dir, snapshotFileName(newest!)), "torn");
    const reopened = await openLog({ dir, clock, config: compact() });
    expect(reopened.producerRecovery).toMatchObject({
      snapshotOffset: 4,
      batchesReplayed: 4,
      snapshotsDiscarded: 1,
    });
    expect(reopened.producerState.entries()).toEqual(expected);
  });

  it("6. the cleaner keeps each live producer's last batch (emptied) so the log alone rebuilds it; once expired it goes", async () => {
    const clock = new TestClock();
    const dir = tempDir();
    const config = compact({ "segment.bytes": 300 });
    const log = await openLog({ dir, clock, config });
    await log.append([kv("a", "1")], { producer: producer(3, 0, 0) });
    await log.append([kv("a", "2")], { producer: producer(3, 0, 1) });
    for (let i = 0; i < 20; i++) await log.append([kv("a", `plain-${i}`)]);
    await log.roll();
    await log.clean({ force: true });
    const onDisk = await replayLog(log);
    expect(onDisk.map((r) => r.offset)).toEqual([21]); // both producer batches' records are superseded
    expect(producerIdsOnDisk(dir).filter((id) => id === 3)).toHaveLength(1); // its last batch, emptied
    const expected = log.producerState.entries();
    await log.close();
    for (const offset of listSnapshotOffsets(dir)) fs.rmSync(path.join(dir, snapshotFileName(offset)));
    const rebuilt = await openLog({ dir, clock, config });
    expect(rebuilt.producerRecovery.snapshotOffset).toBeNull();
    const entry = rebuilt.producerState.entry(3)!;
    expect(entry.batches).toEqual([expected[0]!.batches.at(-1)]);
    expect(await rebuilt.append([kv("a", "r")], { producer: producer(3, 0, 1) })).toMatchObject({
      duplicate: true,
      baseOffset: 1,
    });
    // A day later the producer has expired: the next pass drops its empty batch too.
    clock.advance(DAY_MS);
    await rebuilt.append([kv("b", "1")]);
    await rebuilt.roll();
    await rebuilt.clean({ force: true });
    expect(rebuilt.producerState.entry(3)).toBeUndefined();
    expect(producerIdsOnDisk(dir)).not.toContain(3);
  });

  it("7. a producer silent for producer.id.expiration.ms is forgotten (its next batch may start anywhere)", async () => {
    const clock = new TestClock();
    const dir = tempDir();
    const log = await openLog({ dir, clock, config: compact(), producerIdExpirationMs: 60_000 });
    await log.append(records(1, "a"), { producer: producer(4, 0, 0) });
    clock.advance(59_999);
    await log.roll();
    expect(log.producerState.size).toBe(1);
    clock.advance(1);
    await log.close();
    const reopened = await openLog({ dir, clock, config: compact(), producerIdExpirationMs: 60_000 });
    expect(reopened.producerState.size).toBe(0);
    expect(await reopened.append(records(1, "b"), { producer: producer(4, 0, 0) })).toEqual({
      baseOffset: 1,
      lastOffset: 1,
    });
  });

  it("7b. a log start moved by retention or deleteRecords forgets producers idle past producer.id.expiration.ms at once, and keeps the rest even below the new start", async () => {
    const clock = new TestClock();
    const config = { "cleanup.policy": "delete", "retention.ms": 10_000 };
    const log = await openLog({ dir: tempDir(), clock, config, producerIdExpirationMs: 60_000 });
    const at = () => clock.now();
    await log.append([kv("a", "1", at())], { producer: producer(5, 0, 0) });
    clock.advance(30_000);
    await log.append([kv("b", "1", at())], { producer: producer(6, 0, 0) });
    await log.roll();
    clock.advance(30_000);
    // Nothing moved the start: the expired producer 5 is still remembered.
    expect(log.producerState.entry(5)).toBeDefined();
    expect((await log.applyRetention()).logStartOffset).toBe(2);
    expect(log.producerState.entry(5)).toBeUndefined();
    // Producer 6's batch (offset 1) is below the start now, but it sent 30 s ago: kept (KIP-360).
    expect(log.producerState.entry(6)).toBeDefined();
    expect(await codeOf(log.append([kv("b", "2", at())], { producer: producer(6, 0, 5) }))).toBe(
      "OUT_OF_ORDER_SEQUENCE",
    );
    clock.advance(30_000);
    await log.append([kv("c", "1", at())], { producer: producer(7, 0, 0) });
    await log.deleteRecordsBefore(3);
    expect(log.producerState.entry(6)).toBeUndefined();
    expect(log.producerState.entry(7)).toBeDefined();
    // Forgotten, producer 6 may start anywhere, as an unknown producer may.
    expect(await log.append([kv("b", "3", at())], { producer: producer(6, 0, 5) })).toEqual({
      baseOffset: 3,
      lastOffset: 3,
    });
  });

  it("8. the snapshot format round-trips and refuses a flipped byte", () => {
    const entries: ProducerEntry[] = [
      {
        producerId: 2 ** 52 + 12345,
        producerEpoch: 3,
        batches: [{ firstSeq: 2147483646, lastSeq: 1, baseOffset: 10, lastOffset: 13, timestampMs: -1 }],
        coordinatorEpoch: 7,
        currentTxnFirstOffset: 11,
        lastTimestampMs: -1,
      },
      // Known by a marker only: no batch, its transaction closed.
      {
        producerId: 5,
        producerEpoch: 1,
        batches: [],
        coordinatorEpoch: 0,
        currentTxnFirstOffset: null,
        lastTimestampMs: 50,
      },
    ];
    const aborted = [{ producerId: 5, firstOffset: 3, lastOffset: 8, lastStableOffset: 9 }];
    const bytes = encodeProducerSnapshot({ offset: 99, entries, aborted });
    expect(decodeProducerSnapshot(bytes)).toEqual({ offset: 99, entries, aborted });
    bytes[bytes.length - 1]! ^= 1;
    expect(decodeProducerSnapshot(bytes)).toBe("CRC-32C mismatch");
  });
});

// Property: against a model that keeps every producer's whole history, each idempotent append gets
// the same verdict (append, duplicate with its offsets, out of order, stale epoch), and the state
// rebuilt after a crash or a clean reopen, from snapshots plus the log tail, equals the one in memory.

type Op =
  | {
      kind: "append";
      producerId: number;
      epochStep: number;
      seq: "next" | "dup" | "any";
      back: number;
      any: number;
      count: number;
    }
  | { kind: "roll" }
  | { kind: "crash" }
  | { kind: "reopen" }
  | { kind: "clean" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      producerId: fc.integer({ min: 0, max: 1 }),
      epochStep: fc.constantFrom(-1, 0, 0, 0, 0, 0, 0, 0, 0, 1),
      seq: fc.constantFrom("next", "next", "next", "next", "dup", "dup", "any"),
      back: fc.integer({ min: 0, max: 5 }),
      any: fc.integer({ min: 0, max: 20 }),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  ...bareSteps({ roll: 1, crash: 1, reopen: 1, clean: 1 }),
);

interface ModelBatch {
  firstSeq: number;
  lastSeq: number;
  baseOffset: number;
  lastOffset: number;
}

class Model {
  readonly producers = new Map<number, { epoch: number; history: ModelBatch[] }>();
  end = 0;

  expect(
    p: ProducerAppend,
    count: number,
  ): string | { baseOffset: number; lastOffset: number; duplicate?: true } {
    const lastSeq = p.baseSequence + count - 1;
    const current = this.producers.get(p.producerId);
    if (current === undefined) return this.write(p, count);
    if (p.producerEpoch === current.epoch) {
      const hit = current.history
        .slice(-5)
        .find((b) => b.firstSeq === p.baseSequence && b.lastSeq === lastSeq);
      if (hit) return { baseOffset: hit.baseOffset, lastOffset: hit.lastOffset, duplicate: true };
    }
    if (p.producerEpoch < current.epoch) return "INVALID_PRODUCER_EPOCH";
    if (p.producerEpoch > current.epoch)
      return p.baseSequence === 0 ? this.write(p, count) : "OUT_OF_ORDER_SEQUENCE";
    return p.baseSequence === current.history.at(-1)!.lastSeq + 1
      ? this.write(p, count)
      : "OUT_OF_ORDER_SEQUENCE";
  }

  private write(p: ProducerAppend, count: number) {
    const batch = {
      firstSeq: p.baseSequence,
      lastSeq: p.baseSequence + count - 1,
      baseOffset: this.end,
      lastOffset: this.end + count - 1,
    };
    const current = this.producers.get(p.producerId);
    if (current === undefined || p.producerEpoch > current.epoch)
      this.producers.set(p.producerId, { epoch: p.producerEpoch, history: [batch] });
    else current.history.push(batch);
    this.end += count;
    return { baseOffset: batch.baseOffset, lastOffset: batch.lastOffset };
  }

  nextAppend(o: Extract<Op, { kind: "append" }>): ProducerAppend {
    const current = this.producers.get(o.producerId);
    const epoch = Math.max(0, (current?.epoch ?? 0) + o.epochStep);
    const history = current?.history ?? [];
    if (o.seq === "dup" && history.length > 0) {
      const batch = history[Math.max(0, history.length - 1 - o.back)]!;
      return producer(o.producerId, epoch, batch.firstSeq);
    }
    if (o.seq === "any") return producer(o.producerId, epoch, o.any);
    return producer(
      o.producerId,
      epoch,
      current && epoch === current.epoch ? history.at(-1)!.lastSeq + 1 : 0,
    );
  }
}

describe("producer state property", () => {
  it("verdicts match the model; snapshot + tail rebuild equals the in-memory state", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 20, maxLength: 50 }), async (ops) => {
        const clock = new TestClock();
        const config = compact({ "segment.bytes": 600 });
        const dirs = [tempDir()];
        let log = await PartitionLog.open({ dir: dirs[0]!, clock, config });
        const abandoned: PartitionLog[] = [];
        const model = new Model();
        try {
          for (const o of ops) {
            if (o.kind === "append") {
              const p = model.nextAppend(o);
              // Duplicate batches are sent with the same count they were first written with.
              const dupCount =
                o.seq === "dup"
                  ? model.producers.get(o.producerId)?.history.find((b) => b.firstSeq === p.baseSequence)
                  : undefined;
              const count = dupCount ? dupCount.lastSeq - dupCount.firstSeq + 1 : o.count;
              const want = model.expect(p, count);
              const got = await log
                .append(records(count, "v"), { producer: p })
                .catch((error: LogStoreError) => error.code);
              expect(got).toEqual(want);
            } else if (o.kind === "roll") {
              await log.roll();
            } else if (o.kind === "clean") {
              await log.clean({ force: true });
            } else {
              const before = log.producerState.entries();
              let dir = dirs.at(-1)!;
              if (o.kind === "crash") {
                dir = crashImage(dir);
                dirs.push(dir);
                abandoned.push(log);
              } else await log.close();
              log = await PartitionLog.open({ dir, clock, config });
              expect(log.producerState.entries()).toEqual(before);
            }
            expect(log.logEndOffset).toBe(model.end);
          }
        } finally {
          await log.close();
          for (const old of abandoned) await old.close();
        }
      }),
      { numRuns: 25 },
    );
  });

  it("ProducerStateManager alone: the window is the last five batches of the current epoch", () => {
    const state = new ProducerStateManager();
    for (let b = 0; b < 7; b++) {
      state.update(1, 0, { firstSeq: b, lastSeq: b, baseOffset: b, lastOffset: b, timestampMs: 0 });
    }
    expect(state.entry(1)!.batches.map((b) => b.firstSeq)).toEqual([2, 3, 4, 5, 6]);
    expect(state.check(producer(1, 0, 2), 1)).toEqual({ kind: "duplicate", baseOffset: 2, lastOffset: 2 });
    expect(state.check(producer(1, 0, 7), 1)).toEqual({ kind: "append" });
  });
});
