import { batchCompression, batchCrcMatches, CODEC_IDS, type CompressionName } from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { InvalidRecordError, type LogRecord } from "../src/index";
import { batchesOnDisk, kv, openLog, replayLog, TestClock, tempDir, text } from "./helpers";

// Compressed batches through the whole log: what compression.type stores, reads, tombstone counts,
// the cleaner's read-filter-rewrite, reopening (recovery reads and checks them) and retention.

const CODECS: Exclude<CompressionName, "none">[] = ["gzip", "snappy", "lz4", "zstd"];

/** offset:key=value, the value up to its first "-" (values repeat a round marker). */
const show = (records: LogRecord[]) =>
  records.map((r) => `${r.offset}:${text(r.key)}=${text(r.value)?.split("-")[0] ?? null}`);

/** The codec ids of every batch on disk, oldest first. */
function storedCodecs(dir: string): number[] {
  return batchesOnDisk(dir).map(({ bytes }) => {
    expect(batchCrcMatches(bytes, 0, bytes.length)).toBe(true);
    return batchCompression(bytes, 0);
  });
}

/** A batch of `keys` each set to `<key><round>` (a long value, so codecs have work to do). */
function round(keys: string[], n: number) {
  return keys.map((key) => kv(key, `${key}${n}-`.repeat(30)));
}

describe.each(CODECS)("compression.type=%s", (name) => {
  const codec = CODEC_IDS[name];

  it("stores every batch with the topic's codec and reads it back, whatever the producer sent", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "compression.type": name } });
    await log.append(round(["a", "b", "c"], 1));
    await log.append([kv("a", null), kv("d", "x")], { compression: CODEC_IDS.gzip });
    expect(storedCodecs(dir)).toEqual([codec, codec]);
    expect(show(await log.read(0))).toEqual(["0:a=a1", "1:b=b1", "2:c=c1", "3:a=null", "4:d=x"]);
    expect(show(await log.read(3, { maxRecords: 1 }))).toEqual(["3:a=null"]);
    const { bytes, nextOffset } = await log.readBatches(0);
    expect(nextOffset).toBe(5);
    expect(batchCompression(bytes, 0)).toBe(codec);
    expect(log.segments()[0]!.tombstones).toBe(1);
    await log.close();
    const reopened = await openLog({ dir, config: { "compression.type": name } });
    expect(reopened.recovery.truncatedBytes).toBe(0);
    expect(reopened.segments()[0]!.tombstones).toBe(1);
    expect((await replayLog(reopened)).length).toBe(5);
  });

  it("a cleaner pass keeps every latest value readable, removes superseded ones, and rewrites compressed", async () => {
    const clock = new TestClock();
    const dir = tempDir();
    const config = { "cleanup.policy": "compact", "compression.type": name, "delete.retention.ms": 0 };
    const log = await openLog({ dir, clock, config });
    const keys = ["k0", "k1", "k2", "k3", "k4", "k5"];
    // Superseded within a batch (k0 twice), across batches, and a tombstone.
    await log.append([...round(keys, 1), kv("k0", "k0-again")]);
    await log.append(round(["k1", "k2"], 2));
    await log.append([kv("k3", null), ...round(["k4"], 2)]);
    await log.append(round(["k5"], 3));
    await log.roll();
    await log.append(round(["k2"], 9));
    const result = await log.clean({ force: true });
    expect(result.cleaned).toBe(true);
    // 8:k2 stays: its newer value is in the then active segment, which the map does not cover.
    expect(show(await replayLog(log))).toEqual([
      "6:k0=k0",
      "7:k1=k12",
      "8:k2=k22",
      "9:k3=null",
      "10:k4=k42",
      "11:k5=k53",
      "12:k2=k29",
    ]);
    expect(result.recordsRemoved).toBe(6);
    expect(storedCodecs(dir).every((c) => c === codec)).toBe(true);
    expect(log.segments().reduce((n, s) => n + s.tombstones, 0)).toBe(1);
    // Tombstones go on the next pass once delete.retention.ms (0) has passed since the first.
    clock.advance(1);
    await log.append(round(["k9"], 1));
    await log.roll();
    await log.clean({ force: true });
    expect(show(await replayLog(log))).toEqual([
      "6:k0=k0",
      "7:k1=k12",
      "10:k4=k42",
      "11:k5=k53",
      "12:k2=k29",
      "13:k9=k91",
    ]);
    expect(storedCodecs(dir).every((c) => c === codec)).toBe(true);
    await log.close();
    const reopened = await openLog({ dir, clock, config });
    expect((await replayLog(reopened)).length).toBe(6);
    expect(reopened.segments().reduce((n, s) => n + s.tombstones, 0)).toBe(0);
  });

  it("retention deletes whole compressed segments by size, offsets unchanged", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "compression.type": name, "retention.bytes": 1 } });
    await log.append(round(["a", "b"], 1));
    await log.roll();
    await log.append(round(["c"], 1));
    const { deleted, logStartOffset } = await log.applyRetention();
    expect(deleted.map((s) => s.baseOffset)).toEqual([0]);
    expect(logStartOffset).toBe(2);
    expect(show(await log.read(2))).toEqual(["2:c=c1"]);
  });
});

describe("compression.type=producer and uncompressed", () => {
  it("producer keeps each producer batch's codec; uncompressed stores plain batches", async () => {
    const dir = tempDir();
    const log = await openLog({ dir });
    await log.append(round(["a"], 1), { compression: CODEC_IDS.zstd });
    await log.append(round(["b"], 1));
    await log.append(round(["c"], 1), { compression: CODEC_IDS.lz4 });
    expect(storedCodecs(dir)).toEqual([CODEC_IDS.zstd, 0, CODEC_IDS.lz4]);
    const plainDir = tempDir();
    const plain = await openLog({ dir: plainDir, config: { "compression.type": "uncompressed" } });
    await plain.append(round(["a"], 1), { compression: CODEC_IDS.snappy });
    expect(storedCodecs(plainDir)).toEqual([0]);
  });

  it("an unknown producer codec is refused and nothing is written", async () => {
    const log = await openLog();
    await expect(log.append(round(["a"], 1), { compression: 6 })).rejects.toThrow(InvalidRecordError);
    await expect(log.append(round(["a"], 1), { compression: 6 })).rejects.toThrow(
      "unknown compression codec 6",
    );
    expect(log.logEndOffset).toBe(0);
  });
});
