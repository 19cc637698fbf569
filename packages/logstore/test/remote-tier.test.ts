import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type PartitionLog, type RemoteSegmentSource, seedLog } from "../src/index";
import { REMOTE_SEGMENTS_FILE, readRemoteSegments } from "../src/remote-segments";
import { kv, openLog, replayLog, TestClock, tempDir, text } from "./helpers";

// Segments evicted to a remote tier: the log keeps their bookkeeping, removes their files, and
// fetches their bytes back through its RemoteSegmentSource when a read, a pass or recovery needs
// them. The fast-check model (model.test.ts) evicts at random; these pin the edges.

/** A remote tier in memory; `hold` makes fetches wait until released. */
class MemoryTier implements RemoteSegmentSource {
  readonly objects = new Map<string, Buffer>();
  readonly fetched: number[] = [];
  #held: Promise<void> | null = null;
  #release: (() => void) | null = null;

  async fetch(ref: string, baseOffset: number): Promise<Uint8Array> {
    this.fetched.push(baseOffset);
    await this.#held;
    const bytes = this.objects.get(ref);
    if (!bytes) throw new Error(`no object ${ref}`);
    return bytes;
  }

  hold(): void {
    this.#held = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  release(): void {
    this.#release?.();
    this.#held = null;
  }
}

function logFile(dir: string, baseOffset: number, suffix = ""): string {
  return path.join(dir, `${String(baseOffset).padStart(20, "0")}.log${suffix}`);
}

/** Uploads (copies) a closed segment's file into the tier and evicts it. */
async function evict(log: PartitionLog, tier: MemoryTier, baseOffset: number): Promise<void> {
  const ref = `segments/${baseOffset}-${tier.objects.size}`;
  tier.objects.set(ref, fs.readFileSync(logFile(log.dir, baseOffset)));
  expect(await log.evictSegment(baseOffset, ref)).toBe(true);
}

/** A compacted log of `rounds` × 4 keys in small segments, every value a fresh one. */
async function filledLog(tier: MemoryTier, options: { dir?: string; rounds?: number } = {}) {
  const log = await openLog({
    dir: options.dir ?? tempDir(),
    remote: tier,
    config: { "cleanup.policy": "compact", "segment.bytes": 400, "min.cleanable.dirty.ratio": 0.01 },
  });
  for (let round = 0; round < (options.rounds ?? 6); round++) {
    for (const key of ["a", "b", "c", "d"]) await log.append([kv(key, `${key}${round}-${"x".repeat(40)}`)]);
  }
  return log;
}

function closedBases(log: PartitionLog): number[] {
  return log
    .segments()
    .filter((s) => !s.active)
    .map((s) => s.baseOffset);
}

describe("remote tier", () => {
  it("1. an evicted segment is read back byte for byte through the source, once for concurrent readers", async () => {
    const tier = new MemoryTier();
    const log = await filledLog(tier);
    const before = await replayLog(log);
    const [first, second] = closedBases(log);
    await evict(log, tier, first!);
    await evict(log, tier, second!);
    expect(fs.existsSync(logFile(log.dir, first!))).toBe(false);
    expect(
      log
        .segments()
        .filter((s) => s.remote)
        .map((s) => s.baseOffset),
    ).toEqual([first, second]);
    tier.hold();
    const reads = [log.read(first!, { maxRecords: 1 }), log.read(first!, { maxRecords: 1 })];
    tier.release();
    await Promise.all(reads);
    expect(tier.fetched).toEqual([first]);
    expect((await replayLog(log)).map((r) => [r.offset, text(r.value)])).toEqual(
      before.map((r) => [r.offset, text(r.value)]),
    );
    expect(tier.fetched).toEqual([first, second]);
    expect(log.segments().some((s) => s.remote)).toBe(false);
    expect(readRemoteSegments(log.dir)).toEqual([]);
  });

  it("2. a reopened log keeps its evicted segments evicted, with the same offsets, sizes and counts", async () => {
    const tier = new MemoryTier();
    const log = await filledLog(tier);
    await log.append([kv("gone", null)]);
    await log.roll();
    const shape = log.segments();
    for (const base of closedBases(log)) await evict(log, tier, base);
    await log.close();
    const reopened = await openLog({ dir: log.dir, remote: tier });
    expect(reopened.segments().map(({ remote: _, ...s }) => s)).toEqual(
      shape.map(({ remote: _, ...s }) => s),
    );
    expect(reopened.segments().filter((s) => s.remote)).toHaveLength(shape.length - 1);
    expect(tier.fetched).toEqual([]);
    expect(await replayLog(reopened)).toHaveLength(25);
  });

  it("3. bytes that are not what was evicted are refused, and the segment stays evicted", async () => {
    const tier = new MemoryTier();
    const log = await filledLog(tier);
    const [first] = closedBases(log);
    await evict(log, tier, first!);
    const ref = [...tier.objects.keys()][0]!;
    const good = tier.objects.get(ref)!;
    const flipped = Buffer.from(good);
    flipped[flipped.length - 3]! ^= 0xff;
    tier.objects.set(ref, flipped);
    await expect(log.read(first!)).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
    tier.objects.set(ref, good.subarray(0, good.length - 1));
    await expect(log.read(first!)).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
    expect(log.segments()[0]!.remote).toBe(true);
    expect(
      fs
        .readdirSync(log.dir)
        .filter((name) => name.startsWith(path.basename(logFile(log.dir, first!)).slice(0, 20))),
    ).toEqual([]);
    tier.objects.set(ref, good);
    expect((await log.read(first!, { maxRecords: 1 }))[0]?.offset).toBe(first);
  });

  it("4. an eviction cut short after its record keeps the file; a fetch cut short leaves no half file", async () => {
    const tier = new MemoryTier();
    const log = await filledLog(tier);
    const [first, second] = closedBases(log);
    await evict(log, tier, second!);
    await log.close();
    // Crash between recording the eviction of `first` and removing its files.
    const entries = readRemoteSegments(log.dir);
    fs.writeFileSync(
      path.join(log.dir, REMOTE_SEGMENTS_FILE),
      JSON.stringify({
        version: 1,
        segments: [{ ...entries[0]!, baseOffset: first, ref: "never-uploaded" }, ...entries],
      }),
    );
    // Crash while `second` was being fetched back: a partial file under its temporary name.
    fs.writeFileSync(logFile(log.dir, second!, ".restoring"), "partial");
    const reopened = await openLog({ dir: log.dir, remote: tier });
    expect(
      reopened
        .segments()
        .slice(0, 2)
        .map((s) => [s.baseOffset, s.remote]),
    ).toEqual([
      [first, false],
      [second, true],
    ]);
    expect(fs.existsSync(logFile(log.dir, second!, ".restoring"))).toBe(false);
    expect(readRemoteSegments(log.dir).map((e) => e.baseOffset)).toEqual([second]);
    expect(await replayLog(reopened)).toHaveLength(24);
  });

  it("5. retention deletes evicted segments without fetching them", async () => {
    const tier = new MemoryTier();
    const clock = new TestClock();
    const log = await openLog({
      clock,
      remote: tier,
      config: { "segment.bytes": 300, "retention.ms": 1_000, "file.delete.delay.ms": 0 },
    });
    for (let n = 0; n < 12; n++) await log.append([kv(`k${n}`, "v".repeat(60), clock.now())]);
    const evicted = closedBases(log);
    for (const base of evicted) await evict(log, tier, base);
    clock.advance(5_000);
    await log.append([kv("late", "v", clock.now())]);
    const result = await log.applyRetention();
    expect(evicted.length).toBeGreaterThan(1);
    expect(result.deleted.filter((s) => s.remote).map((s) => s.baseOffset)).toEqual(evicted);
    expect(tier.fetched).toEqual([]);
    expect(readRemoteSegments(log.dir)).toEqual([]);
  });

  it("6. a cleaner pass over evicted segments leaves the same records as the same log cleaned on local disk", async () => {
    const tier = new MemoryTier();
    const local = await filledLog(tier);
    const tiered = await filledLog(tier);
    await tiered.append([kv("b", null)]);
    await local.append([kv("b", null)]);
    for (const log of [local, tiered]) await log.roll();
    for (const base of closedBases(tiered)) await evict(tiered, tier, base);
    const [cleanedLocal, cleanedTiered] = [
      await local.clean({ force: true }),
      await tiered.clean({ force: true }),
    ];
    expect(cleanedTiered.cleaned).toBe(true);
    expect(cleanedTiered.recordsRemoved).toBe(cleanedLocal.recordsRemoved);
    expect(tier.fetched.length).toBeGreaterThan(0);
    const view = (records: Awaited<ReturnType<typeof replayLog>>) =>
      records.map((r) => [r.offset, text(r.key), text(r.value)]);
    expect(view(await replayLog(tiered))).toEqual(view(await replayLog(local)));
    expect(tiered.segments().every((s) => !s.remote)).toBe(true);
  });

  it("7. an eviction waits for a running pass", async () => {
    const tier = new MemoryTier();
    const log = await filledLog(tier);
    await log.roll();
    const [first, second] = closedBases(log);
    await evict(log, tier, first!);
    tier.hold();
    const events: string[] = [];
    const pass = log.clean({ force: true }).then(() => events.push("pass"));
    await expect.poll(() => tier.fetched.length).toBe(1);
    const eviction = log.evictSegment(second!, "waits").then((done) => events.push(`evict ${done}`));
    tier.release();
    await Promise.all([pass, eviction]);
    // The pass replaced `second` with its cleaned group: the eviction found nothing to evict.
    expect(events[0]).toBe("pass");
  });

  it("8. refuses to evict the active segment, an evicted one or an unknown base", async () => {
    const tier = new MemoryTier();
    const log = await filledLog(tier);
    const [first] = closedBases(log);
    await evict(log, tier, first!);
    expect(await log.evictSegment(first!, "again")).toBe(false);
    expect(await log.evictSegment(log.segments().at(-1)!.baseOffset, "active")).toBe(false);
    expect(await log.evictSegment(123_456, "unknown")).toBe(false);
  });

  it("9. a seeded log of remote segments and a local tail recovers producers from the seeded snapshot without fetching", async () => {
    const tier = new MemoryTier();
    const source = await filledLog(tier);
    const producer = { producerId: 7, producerEpoch: 0, baseSequence: 0 };
    await source.append([kv("p", "once")], { producer });
    await source.roll();
    const closed = closedBases(source);
    const snapshotOffset = source.segments().at(-1)!.baseOffset;
    const snapshot = source.producerSnapshotAt(snapshotOffset);
    expect(snapshot).not.toBeNull();
    for (const base of closed) await evict(source, tier, base);
    const entries = readRemoteSegments(source.dir);
    const seed = async (withSnapshot: boolean) => {
      const dir = tempDir();
      await seedLog(dir, {
        logStartOffset: source.logStartOffset,
        parts: [
          ...entries.map((entry) => ({ kind: "remote" as const, entry })),
          { kind: "local" as const, baseOffset: snapshotOffset, batches: [] },
        ],
        ...(withSnapshot ? { producerSnapshot: snapshot! } : {}),
      });
      return dir;
    };
    const fetchedBefore = tier.fetched.length;
    const seeded = await openLog({ dir: await seed(true), remote: tier });
    expect(tier.fetched.length).toBe(fetchedBefore);
    expect(await seeded.append([kv("p", "once")], { producer })).toMatchObject({ duplicate: true });
    // Without the snapshot the producer's batch must be replayed: its segment is fetched back.
    const replayed = await openLog({ dir: await seed(false), remote: tier });
    expect(tier.fetched.length).toBeGreaterThan(fetchedBefore);
    expect(await replayed.append([kv("p", "once")], { producer })).toMatchObject({ duplicate: true });
    expect((await replayLog(replayed)).map((r) => text(r.value))).toEqual(
      (await replayLog(source)).map((r) => text(r.value)),
    );
  });

  it("11. a log seeded from the remote tier knows the aborted transactions of segments it never fetches (the snapshot carries them)", async () => {
    const tier = new MemoryTier();
    const source = await openLog({
      config: { "cleanup.policy": "compact", "segment.bytes": 300 },
      remote: tier,
    });
    const txn = (pid: number, seq: number, key: string) =>
      source.append([kv(key, `${key}-v`)], {
        producer: { producerId: pid, producerEpoch: 0, baseSequence: seq },
        transactional: true,
      });
    const marker = (pid: number, commit: boolean) =>
      source.appendTxnMarker({
        producerId: pid,
        producerEpoch: 0,
        coordinatorEpoch: 0,
        commit,
        timestampMs: 1,
      });
    for (let round = 0; round < 4; round++) {
      await txn(1, round, `a${round}`);
      await txn(2, round, `b${round}`);
      await marker(1, round % 2 === 0);
      await marker(2, false);
      await source.roll();
    }
    const aborted = source.abortedTransactions(0, source.logEndOffset);
    expect(aborted.length).toBe(6);
    const committed = (await source.read(0, { maxBytes: 1 << 20 })).map((r) => text(r.key));
    const snapshotOffset = source.segments().at(-1)!.baseOffset;
    const snapshot = source.producerSnapshotAt(snapshotOffset)!;
    for (const base of closedBases(source)) await evict(source, tier, base);
    const dir = tempDir();
    await seedLog(dir, {
      logStartOffset: source.logStartOffset,
      parts: [
        ...readRemoteSegments(source.dir).map((entry) => ({ kind: "remote" as const, entry })),
        { kind: "local" as const, baseOffset: snapshotOffset, batches: [] },
      ],
      producerSnapshot: snapshot,
    });
    const fetchedBefore = tier.fetched.length;
    const seeded = await openLog({ dir, remote: tier });
    expect(tier.fetched.length).toBe(fetchedBefore);
    expect(seeded.abortedTransactions(0, seeded.logEndOffset)).toEqual(aborted);
    // Reading fetches the segments back; the aborted records stay hidden.
    expect((await seeded.read(0, { maxBytes: 1 << 20 })).map((r) => text(r.key))).toEqual(committed);
    expect(committed).toEqual(["a0", "a2"]);
  });

  it("10. a log with evicted segments and no source refuses to read them", async () => {
    const tier = new MemoryTier();
    const log = await filledLog(tier);
    const [first] = closedBases(log);
    await evict(log, tier, first!);
    await log.close();
    const blind = await openLog({ dir: log.dir });
    await expect(blind.read(first!)).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
  });
});
