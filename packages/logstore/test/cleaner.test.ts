import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLEANER_CHECKPOINT_FILE, readCleanerCheckpoint } from "../src/cleaner-checkpoint";
import type { LogRecord, PartitionLog } from "../src/index";
import { batchesOnDisk, kv, openLog, replayLog, TestClock, tempDir, text } from "./helpers";

// Numbered by the cleaner rule they pin; each test is named after the rule it pins.

const DAY = 86_400_000;

const show = (records: LogRecord[]) => records.map((r) => `${r.offset}:${text(r.key)}=${text(r.value)}`);

async function appendEach(log: PartitionLog, pairs: [string | null, string | null][]): Promise<void> {
  for (const [key, value] of pairs) await log.append([kv(key, value)]);
}

const compact = (extra: Record<string, string | number> = {}) => ({ "cleanup.policy": "compact", ...extra });

/** A compacted log holding `pairs` (a batch each), rolled so that every one of them may be cleaned. */
async function rolledLog(
  pairs: [string | null, string | null][],
  options: { config?: Record<string, string | number> } & Omit<
    NonNullable<Parameters<typeof openLog>[0]>,
    "config"
  > = {},
): Promise<PartitionLog> {
  const log = await openLog({ ...options, config: compact(options.config) });
  await appendEach(log, pairs);
  await log.roll();
  return log;
}

describe("seeds: worked examples", () => {
  it("000: offsets 0–11 with 9–11 active → 5 6 7 8 9 10 11 (Kafka keeps d1: its newer d2 is only in the active segment)", async () => {
    const log = await openLog({ config: compact() });
    const before: [string, string][] = [
      ["A", "a1"],
      ["B", "b1"],
      ["A", "a2"],
      ["C", "c1"],
      ["B", "b2"],
      ["A", "a3"],
      ["D", "d1"],
      ["C", "c2"],
      ["B", "b3"],
    ];
    await appendEach(log, before);
    await log.roll();
    await appendEach(log, [
      ["A", "a4"],
      ["E", "e1"],
      ["D", "d2"],
    ]);
    const result = await log.clean();
    expect(result.cleaned).toBe(true);
    // The drawing shows 5 7 8 9 10 11, dropping 6:D=d1. Kafka's map only covers the dirty range up to
    // the active segment's base, where D's latest is d1 at 6, so d1 stays until d2's segment is cleaned.
    expect(show(await replayLog(log))).toEqual([
      "5:A=a3",
      "6:D=d1",
      "7:C=c2",
      "8:B=b3",
      "9:A=a4",
      "10:E=e1",
      "11:D=d2",
    ]);
    await log.roll();
    await log.clean({ force: true });
    expect(show(await replayLog(log))).toEqual(["7:C=c2", "8:B=b3", "9:A=a4", "10:E=e1", "11:D=d2"]);
  });

  it("001: A1 B2 A3 C4 B6 A5 → 3:C=4 4:B=6 5:A=5, in offset order (the drawing lists 5 before 4; order never changes)", async () => {
    const log = await rolledLog([
      ["A", "1"],
      ["B", "2"],
      ["A", "3"],
      ["C", "4"],
      ["B", "6"],
      ["A", "5"],
    ]);
    await log.clean();
    expect(show(await replayLog(log))).toEqual(["3:C=4", "4:B=6", "5:A=5"]);
  });

  it("002: a map smaller than one segment still cleans (Kafka ≥ KAFKA-3894 cleans partial segments)", async () => {
    const log = await openLog({ config: compact(), dedupeBufferBytes: 24 * 3 }); // 3 slots → 2 keys a pass
    await appendEach(log, [
      ["a", "1"],
      ["b", "1"],
      ["c", "1"],
      ["a", "2"],
      ["b", "2"],
      ["c", "2"],
    ]);
    await log.roll();
    const first = await log.clean({ force: true });
    expect(first.nextDirtyOffset).toBeLessThan(6);
    while ((await log.clean({ force: true })).nextDirtyOffset < 6);
    expect(show(await replayLog(log))).toEqual(["3:a=2", "4:b=2", "5:c=2"]);
  });
});

describe("1. cleanable range", () => {
  it("1.1 the active segment is never cleaned", async () => {
    const log = await openLog({ config: compact() });
    await appendEach(log, [
      ["k", "1"],
      ["k", "2"],
      ["k", "3"],
    ]);
    const result = await log.clean({ force: true });
    expect(result.recordsRead).toBe(0);
    expect(show(await replayLog(log))).toEqual(["0:k=1", "1:k=2", "2:k=3"]);
  });

  it("1.2 a checkpoint past the log end restarts at the log start", async () => {
    const dir = tempDir();
    const log = await rolledLog(
      [
        ["k", "1"],
        ["k", "2"],
      ],
      { dir },
    );
    await log.close();
    fs.writeFileSync(path.join(dir, CLEANER_CHECKPOINT_FILE), "0\n999\n-1\n");
    const reopened = await openLog({ dir, config: compact() });
    expect(reopened.cleanableStats()).toMatchObject({ firstDirtyOffset: 0, dirtyRatio: 1, cleanable: true });
    await reopened.clean();
    expect(show(await replayLog(reopened))).toEqual(["1:k=2"]);
  });

  it("1.3 min.compaction.lag.ms keeps segments with young records out of the pass", async () => {
    const clock = new TestClock();
    const log = await openLog({ clock, config: compact({ "min.compaction.lag.ms": 60_000 }) });
    await log.append([kv("k", "old", clock.now() - 120_000)]);
    await log.roll();
    await log.append([kv("k", "young", clock.now())]);
    await log.roll();
    await log.append([kv("other", "x")]);
    const stats = log.cleanableStats();
    expect(stats.firstUncleanableOffset).toBe(1);
    await log.clean({ force: true });
    expect(show(await replayLog(log))).toEqual(["0:k=old", "1:k=young", "2:other=x"]);
    clock.advance(60_000);
    expect(log.cleanableStats().firstUncleanableOffset).toBe(2);
    await log.clean({ force: true });
    expect(show(await replayLog(log))).toEqual(["1:k=young", "2:other=x"]);
  });

  it("1.4 the dirty ratio must be strictly above min.cleanable.dirty.ratio", async () => {
    const log = await rolledLog(
      [
        ["a", "1"],
        ["a", "2"],
      ],
      { config: { "min.cleanable.dirty.ratio": 0.5 } },
    );
    await log.clean();
    await appendEach(log, [["a", "3"]]);
    await log.roll();
    const stats = log.cleanableStats();
    // One clean segment and one dirty segment of the same size: exactly 0.5.
    expect(stats.dirtyRatio).toBe(0.5);
    expect(stats.cleanable).toBe(false);
    expect((await log.clean()).cleaned).toBe(false);
  });

  it("1.5 max.compaction.lag.ms forces a pass below the ratio, from the first dirty batch's timestamp", async () => {
    const clock = new TestClock();
    const log = await openLog({
      clock,
      config: compact({ "min.cleanable.dirty.ratio": 0.99, "max.compaction.lag.ms": 60_000 }),
    });
    await appendEach(log, [
      ["a", "1"],
      ["b", "1"],
      ["c", "1"],
    ]);
    await log.roll();
    await log.clean({ force: true });
    await log.append([kv("a", "2")]);
    await log.roll();
    const firstTimestamp = clock.now();
    expect(log.cleanableStats().cleanable).toBe(false);
    expect(log.nextCleanDueAt()).toBe(firstTimestamp + 60_001);
    clock.advance(60_001);
    expect(log.cleanableStats()).toMatchObject({ cleanable: true, maxCompactionDelayMs: 1 });
    const result = await log.clean();
    expect(result).toMatchObject({ cleaned: true, trigger: "max-compaction-lag", maxCompactionDelayMs: 1 });
    expect(show(await replayLog(log))).toEqual(["1:b=1", "2:c=1", "3:a=2"]);
  });
});

describe("2. offset map budget", () => {
  it("2.1 a budget too small for one entry is INVALID_CONFIG at open", async () => {
    await expect(openLog({ config: compact(), dedupeBufferBytes: 47 })).rejects.toMatchObject({
      code: "INVALID_CONFIG",
    });
    await expect(openLog({ config: compact(), dedupeBufferBytes: 48 })).resolves.toBeDefined();
  });

  it("2.2 a full map cleans the prefix that fits, mid-segment, and repeated passes converge", async () => {
    const log = await openLog({ config: compact(), dedupeBufferBytes: 24 * 7 }); // 7 slots → 6 keys a pass
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < 10; k++) await log.append([kv(`k${k}`, `v${round}`)]);
    }
    await log.roll();
    const first = await log.clean({ force: true });
    expect(first.nextDirtyOffset).toBe(6);
    expect(first.mapUtilization).toBeCloseTo(6 / 7);
    let passes = 1;
    while (log.cleanableStats().dirtyBytes > 0 && passes < 20) {
      await log.clean({ force: true });
      passes++;
    }
    expect(passes).toBeGreaterThan(2);
    const records = await replayLog(log);
    expect(show(records)).toEqual(Array.from({ length: 10 }, (_, k) => `${20 + k}:k${k}=v2`));
  });
});

describe("3. recopy", () => {
  it("3.1 offsets and order never change; surviving batches keep their base and last offsets", async () => {
    const log = await openLog({ config: compact() });
    await log.append([kv("a", "1"), kv("b", "1"), kv("c", "1")]);
    await log.append([kv("b", "2")]);
    await log.roll();
    await log.clean();
    const batches = batchesOnDisk(log.dir).map((b) => [
      b.header.baseOffset,
      b.header.lastOffset,
      b.header.recordCount,
    ]);
    expect(batches).toEqual([
      [0, 2, 2],
      [3, 3, 1],
    ]);
    expect(show(await replayLog(log))).toEqual(["0:a=1", "2:c=1", "3:b=2"]);
  });

  it("3.2 a retained batch with nothing removed is copied byte for byte", async () => {
    const log = await openLog({ config: compact() });
    await log.append([kv("a", "1"), kv("b", "1")]);
    await log.append([kv("a", "2")]);
    await log.append([kv("c", "1"), kv("d", "1")]);
    await log.roll();
    const before = batchesOnDisk(log.dir);
    await log.clean();
    const after = batchesOnDisk(log.dir);
    expect(after[0]!.bytes.equals(before[0]!.bytes)).toBe(false);
    expect(after[1]!.bytes.equals(before[1]!.bytes)).toBe(true);
    expect(after[2]!.bytes.equals(before[2]!.bytes)).toBe(true);
  });

  it("3.3 segments are regrouped into segments of at most segment.bytes", async () => {
    const log = await openLog({ config: compact({ "segment.bytes": 1200 }) });
    for (let i = 0; i < 40; i++) await log.append([kv(`k${i % 4}`, "x".repeat(60))]);
    await log.roll();
    const segmentsBefore = log.segments().length;
    await log.clean();
    const after = log.segments();
    expect(after.length).toBeLessThan(segmentsBefore);
    for (const segment of after) expect(segment.sizeBytes).toBeLessThanOrEqual(1200);
    expect(show(await replayLog(log)).map((r) => r.split(":")[0])).toEqual(["36", "37", "38", "39"]);
  });

  it("3.4 an emptied batch that ends the round stays as an empty batch, so the log end survives reopen", async () => {
    const clock = new TestClock();
    const dir = tempDir();
    const config = compact({ "delete.retention.ms": 1000 });
    const log = await openLog({ dir, clock, config });
    await log.append([kv("a", "1")]);
    await log.append([kv("a", null)]);
    await log.roll();
    await log.clean();
    clock.advance(1000);
    const result = await log.clean();
    expect(result.tombstonesRemoved).toBe(1);
    expect(
      batchesOnDisk(dir).map((b) => [b.header.baseOffset, b.header.lastOffset, b.header.recordCount]),
    ).toEqual([[1, 1, 0]]);
    await log.close();
    const reopened = await openLog({ dir, clock, config });
    expect(reopened.logEndOffset).toBe(2);
    expect(await replayLog(reopened)).toEqual([]);
  });
  it("3.5 batches larger than the cleaner's 1 MiB read chunk are filtered whole", async () => {
    const big = "x".repeat(1_500_000);
    const log = await openLog({ config: compact({ "max.message.bytes": 4 << 20 }) });
    await log.append([kv("a", big), kv("b", "1")]);
    await log.append([kv("b", "2")]);
    await log.append([kv("c", big)]);
    await log.roll();
    const result = await log.clean();
    expect(result.recordsRemoved).toBe(1);
    const records = await replayLog(log);
    expect(records.map((r) => [r.offset, text(r.key), r.value!.length])).toEqual([
      [0, "a", big.length],
      [2, "b", 1],
      [3, "c", big.length],
    ]);
  });
});

describe("4. tombstones", () => {
  it("4.1 a pass keeping a tombstone stamps its batch with pass start + delete.retention.ms", async () => {
    const clock = new TestClock();
    const log = await openLog({ clock, config: compact({ "delete.retention.ms": DAY }) });
    await log.append([kv("a", null, clock.now() - 5000)]);
    await log.roll();
    await log.clean();
    const [batch] = batchesOnDisk(log.dir);
    expect(batch!.header.deleteHorizonMs).toBe(clock.now() + DAY);
    const [record] = await replayLog(log);
    expect(record!.timestamp).toBe(clock.now() - 5000);
  });

  it("4.2 a tombstone survives until its horizon, and the first pass at or after it removes it", async () => {
    const clock = new TestClock();
    const log = await rolledLog(
      [
        ["a", "1"],
        ["a", null],
        ["b", "1"],
      ],
      { clock, config: { "delete.retention.ms": DAY } },
    );
    const tombstoneTimestamp = clock.now();
    const first = await log.clean();
    expect([first.tombstonesRemoved, first.removedTombstones]).toEqual([0, []]);
    expect(show(await replayLog(log))).toEqual(["1:a=null", "2:b=1"]);
    clock.advance(DAY - 1);
    await log.clean({ force: true });
    expect(show(await replayLog(log))).toEqual(["1:a=null", "2:b=1"]);
    clock.advance(1);
    const result = await log.clean({ force: true });
    expect(result.tombstonesRemoved).toBe(1);
    expect(result.removedTombstones).toEqual([
      {
        key: Buffer.from("a"),
        offset: 1,
        timestamp: tombstoneTimestamp,
        reason: "delete-horizon",
        horizonMs: tombstoneTimestamp + DAY,
      },
    ]);
    expect(show(await replayLog(log))).toEqual(["2:b=1"]);
  });

  it("4.3 a superseded tombstone goes at once", async () => {
    const log = await rolledLog(
      [
        ["a", "1"],
        ["a", null],
        ["a", "2"],
      ],
      { config: { "delete.retention.ms": DAY } },
    );
    const result = await log.clean();
    expect(result.tombstonesRemoved).toBe(1);
    expect(result.removedTombstones).toMatchObject([
      { key: Buffer.from("a"), offset: 1, reason: "superseded" },
    ]);
    expect(show(await replayLog(log))).toEqual(["2:a=2"]);
  });

  it("4.4 an empty value is a value, never a tombstone: no horizon, never removed", async () => {
    const clock = new TestClock();
    const log = await rolledLog(
      [
        ["a", "1"],
        ["a", ""],
      ],
      { clock, config: { "delete.retention.ms": 0 } },
    );
    await log.clean();
    clock.advance(DAY);
    await log.clean({ force: true });
    expect(show(await replayLog(log))).toEqual(["1:a="]);
    expect(batchesOnDisk(log.dir).every((b) => b.header.deleteHorizonMs === null)).toBe(true);
  });

  it("4.5 beyond Kafka: a passed horizon makes an idle partition due by itself", async () => {
    const clock = new TestClock();
    const dir = tempDir();
    const config = compact({ "delete.retention.ms": DAY });
    const log = await openLog({ dir, clock, config });
    await appendEach(log, [
      ["a", "1"],
      ["b", "1"],
      ["a", null],
    ]);
    await log.roll();
    await log.clean();
    const horizon = clock.now() + DAY;
    expect(log.nextCleanDueAt()).toBe(horizon);
    await log.close();
    const reopened = await openLog({ dir, clock, config });
    expect(reopened.nextCleanDueAt()).toBe(horizon);
    clock.advance(DAY - 1);
    expect(reopened.cleanableStats().cleanable).toBe(false);
    clock.advance(1);
    expect(reopened.cleanableStats()).toMatchObject({ cleanable: true, dirtyBytes: 0 });
    const result = await reopened.clean();
    expect(result).toMatchObject({ cleaned: true, trigger: "delete-horizon", tombstonesRemoved: 1 });
    expect(show(await replayLog(reopened))).toEqual(["1:b=1"]);
    expect(reopened.nextCleanDueAt()).toBeNull();
  });
});

describe("5. records without keys", () => {
  it("5.1 keyless records from before the switch to compact are dropped and counted", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "cleanup.policy": "delete" } });
    await appendEach(log, [
      [null, "x"],
      ["a", "1"],
      [null, "y"],
    ]);
    await log.close();
    const compacted = await openLog({ dir, config: compact() });
    await compacted.roll();
    const result = await compacted.clean();
    expect(result.keylessRecordsRemoved).toBe(2);
    expect(result.recordsRemoved).toBe(2);
    expect(show(await replayLog(compacted))).toEqual(["1:a=1"]);
  });
});

describe("7. checkpoint and idempotence", () => {
  it("7.1 the checkpoint records the pass's end offset once the swaps are done", async () => {
    const log = await rolledLog([
      ["a", "1"],
      ["a", "2"],
    ]);
    await appendEach(log, [["a", "3"]]);
    expect(readCleanerCheckpoint(log.dir)).toBeNull();
    const result = await log.clean();
    expect(result.nextDirtyOffset).toBe(2);
    expect(readCleanerCheckpoint(log.dir)).toEqual({ firstDirtyOffset: 2, earliestDeleteHorizonMs: null });
  });

  it("7.2 a second pass with no new data changes nothing", async () => {
    const clock = new TestClock();
    const log = await openLog({ clock, config: compact({ "segment.bytes": 600 }) });
    for (let i = 0; i < 30; i++) await log.append([kv(`k${i % 5}`, i % 7 === 0 ? null : `v${i}`)]);
    await log.roll();
    await log.clean();
    const files = () =>
      fs
        .readdirSync(log.dir)
        .sort()
        .map((name) => [name, fs.readFileSync(path.join(log.dir, name)).toString("hex")]);
    const before = { files: files(), segments: log.segments(), records: show(await replayLog(log)) };
    const second = await log.clean({ force: true });
    expect(second).toMatchObject({ cleaned: true, recordsRemoved: 0, bytesWritten: 0 });
    expect({ files: files(), segments: log.segments(), records: show(await replayLog(log)) }).toEqual(before);
  });
});

describe("8. compact,delete", () => {
  it("8.1 compaction and time retention both apply: even a key's latest value ages out", async () => {
    const clock = new TestClock();
    const log = await openLog({
      clock,
      config: { "cleanup.policy": "compact,delete", "retention.ms": 10_000 },
    });
    await appendEach(log, [
      ["a", "1"],
      ["a", "2"],
      ["b", "1"],
    ]);
    await log.roll();
    await log.clean();
    expect(show(await replayLog(log))).toEqual(["1:a=2", "2:b=1"]);
    clock.advance(10_001);
    await log.append([kv("c", "1")]);
    const retention = await log.applyRetention();
    expect(retention.deleted.map((s) => s.reason)).toEqual(["time"]);
    expect(show(await replayLog(log))).toEqual(["3:c=1"]);
  });
});

describe("9. stats", () => {
  it("9.1 a pass reports what it read, wrote and removed, and Kafka's cleaner metrics", async () => {
    const log = await rolledLog([
      ["a", "1"],
      ["b", "1"],
      ["a", "2"],
      ["a", null],
      ["c", "1"],
    ]);
    const segmentBytes = log.segments()[0]!.sizeBytes;
    const result = await log.clean();
    expect(result).toMatchObject({
      cleaned: true,
      bytesRead: segmentBytes,
      mapBytesRead: segmentBytes,
      recordsRead: 5,
      recordsRemoved: 2,
      tombstonesRemoved: 0,
      nextDirtyOffset: 5,
      dirtyRatio: 1,
      trigger: "dirty-ratio",
      segmentsRead: 1,
      segmentsWritten: 1,
    });
    expect(result.bytesWritten).toBe(log.segments()[0]!.sizeBytes);
    expect(result.recopyPercent).toBeCloseTo((100 * result.bytesWritten) / segmentBytes);
    expect(result.mapUtilization).toBeGreaterThan(0);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("9.2 nothing runs on a delete-only topic, or when nothing is due", async () => {
    const log = await openLog({ config: { "cleanup.policy": "delete" } });
    await appendEach(log, [
      ["a", "1"],
      ["a", "2"],
    ]);
    await log.roll();
    expect(log.cleanableStats().cleanable).toBe(false);
    expect(await log.clean({ force: true })).toMatchObject({ cleaned: false, trigger: null });
    expect(log.nextCleanDueAt()).toBeNull();
  });
});

describe("10. concurrency", () => {
  it("10.1 appends during a pass land in the active segment and survive the swap", async () => {
    const log = await openLog({ config: compact({ "segment.bytes": 2000 }) });
    for (let i = 0; i < 200; i++) await log.append([kv(`k${i % 10}`, `v${i}`)]);
    await log.roll();
    const pass = log.clean();
    const appended = await Promise.all([log.append([kv("new", "1")]), log.append([kv("k0", "latest")])]);
    const result = await pass;
    expect(result.cleaned).toBe(true);
    const records = show(await replayLog(log));
    expect(records).toContain(`${appended[0].baseOffset}:new=1`);
    expect(records).toContain(`${appended[1].baseOffset}:k0=latest`);
    expect(records.filter((r) => r.includes(":k0="))).toEqual([
      `190:k0=v190`,
      `${appended[1].baseOffset}:k0=latest`,
    ]);
  });

  it("10.2 a pass whose segments retention removed stops without swapping or checkpointing", async () => {
    const clock = new TestClock();
    const config = { "cleanup.policy": "compact,delete", "segment.bytes": 2000 };
    const log = await openLog({ clock, config });
    for (let i = 0; i < 200; i++) await log.append([kv(`k${i % 10}`, `v${i}`)]);
    await log.roll();
    await log.append([kv("tail", "x")]);
    const pass = log.clean({ force: true });
    await log.deleteRecordsBefore(150);
    await log.applyRetention();
    const result = await pass;
    expect(result.cleaned).toBe(false);
    expect(result.abortedReason).toMatch(/removed during the pass/);
    expect(readCleanerCheckpoint(log.dir)).toBeNull();
    expect(fs.readdirSync(log.dir).filter((n) => /\.(cleaned|swap)$/.test(n))).toEqual([]);
    const records = await replayLog(log);
    expect(records[0]!.offset).toBeGreaterThanOrEqual(150);
    await log.clean({ force: true });
    expect(show(await replayLog(log)).filter((r) => r.includes(":k0="))).toEqual(["190:k0=v190"]);
  });

  it("10.3 closing the log during a pass aborts it and leaves no temporary files", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: compact({ "segment.bytes": 2000 }) });
    for (let i = 0; i < 200; i++) await log.append([kv(`k${i % 10}`, `v${i}`)]);
    await log.roll();
    const pass = log.clean();
    await log.close();
    const result = await pass;
    expect(result.abortedReason).toMatch(/closed/);
    expect(fs.readdirSync(dir).filter((n) => /\.(cleaned|swap)$/.test(n))).toEqual([]);
    const reopened = await openLog({ dir, config: compact({ "segment.bytes": 2000 }) });
    expect((await replayLog(reopened)).length).toBe(200);
  });
});

describe("11. reading a compacted log", () => {
  it("11.1 a read from an offset compaction removed still returns the next records (default maxBytes)", async () => {
    const big = "x".repeat(1_500_000);
    const log = await openLog({ config: compact({ "max.message.bytes": 4 << 20 }) });
    await log.append([kv("a", big), kv("b", "1")]);
    await log.append([kv("b", "2")]);
    await log.roll();
    await log.clean();
    // Offset 1 is gone; its batch [0, 1] still holds offset 0, which is below the read position.
    const records = await log.read(1);
    expect(records.map((r) => [r.offset, text(r.key)])).toEqual([[2, "b"]]);
  });
});

describe("12. corruption", () => {
  it("12.1 a corrupt batch makes clean() throw CORRUPT_SEGMENT and leaves the log as it was", async () => {
    const dir = tempDir();
    const log = await rolledLog(
      [
        ["a", "1"],
        ["a", "2"],
        ["b", "1"],
      ],
      { dir },
    );
    await log.append([kv("c", "1")]);
    await log.close();
    const file = path.join(
      dir,
      fs
        .readdirSync(dir)
        .filter((n) => n.endsWith(".log"))
        .sort()[0]!,
    );
    const bytes = fs.readFileSync(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 2) ^ 0xff, bytes.length - 2); // in the last record
    fs.writeFileSync(file, bytes);
    const reopened = await openLog({ dir, config: compact() });
    await expect(reopened.clean()).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
    expect(fs.readdirSync(dir).filter((n) => /\.(cleaned|swap)$/.test(n))).toEqual([]);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
  });
});
