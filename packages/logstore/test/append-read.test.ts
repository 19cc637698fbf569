import fs from "node:fs";
import path from "node:path";
import { decodeBatch, encodeRecordBatch, rebuildBatch } from "@lastword/record-batch";
import { describe, expect, it, vi } from "vitest";
import { PartitionLog } from "../src/index";
import { Segment } from "../src/segment";
import { kv, openLog, TestClock, tempDir, text } from "./helpers";

describe("append", () => {
  it("1. assigns consecutive offsets across batches and resolves with the batch's range", async () => {
    const log = await openLog();
    expect(await log.append([kv("a", "1"), kv("b", "2")])).toEqual({ baseOffset: 0, lastOffset: 1 });
    expect(await log.append([kv("c", "3")])).toEqual({ baseOffset: 2, lastOffset: 2 });
    expect(log.logEndOffset).toBe(3);
    expect(log.highWatermark).toBe(3);
    expect((await log.read(0)).map((r) => r.offset)).toEqual([0, 1, 2]);
  });

  it("2. a null key on a compacted topic rejects the whole batch and appends nothing", async () => {
    for (const policy of ["compact", "compact,delete"]) {
      const log = await openLog({ config: { "cleanup.policy": policy } });
      await expect(log.append([kv("a", "1"), kv(null, "2")])).rejects.toMatchObject({
        code: "INVALID_RECORD",
      });
      expect(log.logEndOffset).toBe(0);
      expect(log.segments()[0]!.sizeBytes).toBe(0);
    }
    const plain = await openLog({ config: { "cleanup.policy": "delete" } });
    expect(await plain.append([kv(null, "x")])).toEqual({ baseOffset: 0, lastOffset: 0 });
  });

  it("3. an empty value is a value, not a tombstone", async () => {
    const log = await openLog({ config: { "cleanup.policy": "compact" } });
    await log.append([{ key: Buffer.from("k"), value: Buffer.alloc(0) }, kv("t", null)]);
    const [empty, tombstone] = await log.read(0);
    expect(empty!.value).toEqual(Buffer.alloc(0));
    expect(tombstone!.value).toBeNull();
  });

  it("4. max.message.bytes bounds the encoded batch; a batch larger than segment.bytes is refused", async () => {
    const log = await openLog({ config: { "max.message.bytes": 200, "segment.bytes": 100_000 } });
    await expect(log.append([kv("k", "x".repeat(200))])).rejects.toMatchObject({ code: "RECORD_TOO_LARGE" });
    await log.append([kv("k", "x".repeat(100))]);
    const small = await openLog({ config: { "segment.bytes": 150 } });
    await expect(small.append([kv("k", "x".repeat(200))])).rejects.toMatchObject({
      code: "RECORD_TOO_LARGE",
    });
    expect(small.logEndOffset).toBe(0);
  });

  it("5. malformed input is INVALID_RECORD: empty batch, non-Buffer value, bad timestamp, bad header", async () => {
    const log = await openLog();
    const bad: unknown[][] = [
      [],
      [{ key: null, value: "text" }],
      [{ key: null, value: null, timestamp: -5 }],
      [{ key: null, value: null, headers: [{ key: 1, value: null }] }],
    ];
    for (const records of bad) {
      await expect(log.append(records as never)).rejects.toMatchObject({ code: "INVALID_RECORD" });
    }
    expect(log.logEndOffset).toBe(0);
  });

  it("6. the append time fills missing timestamps from the injected clock", async () => {
    const clock = new TestClock(42_000);
    const log = await openLog({ clock });
    await log.append([kv("a", "1"), kv("b", "2", 7)]);
    expect((await log.read(0)).map((r) => r.timestamp)).toEqual([42_000, 7]);
  });

  it("7. LogAppendTime overrides producer timestamps with the append time", async () => {
    const clock = new TestClock(50_000);
    const log = await openLog({ clock, config: { "message.timestamp.type": "LogAppendTime" } });
    await log.append([kv("a", "1", 3)]);
    expect((await log.read(0))[0]!.timestamp).toBe(50_000);
  });

  it("8. group commit: concurrent appends all resolve durable with distinct consecutive offsets", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, durability: "group-commit", config: { "segment.bytes": 2_000 } });
    const flush = vi.spyOn(Segment.prototype, "flushLog");
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => log.append([kv(`k${i}`, `v${i}`)])),
    );
    // Shared fsyncs: far fewer than one per append (rolls flush through flushAll, not counted).
    expect(flush.mock.calls.length).toBeLessThan(10);
    flush.mockRestore();
    expect(results.map((r) => r.baseOffset).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
    expect(log.highWatermark).toBe(50);
    const values = (await log.read(0, { maxRecords: 100 })).map((r) => text(r.value));
    expect(values).toEqual(results.map((_, i) => `v${i}`));
    await log.close();
    const reopened = await openLog({ dir });
    expect(reopened.logEndOffset).toBe(50);
  });
});

describe("read", () => {
  it("9. returns the first records at or after the offset, bounded by maxRecords", async () => {
    const log = await openLog({ config: { "segment.bytes": 500 } });
    for (let i = 0; i < 30; i++) await log.append([kv(`k${i}`, `v${i}`), kv(`j${i}`, `w${i}`)]);
    expect(log.segments().length).toBeGreaterThan(3);
    const records = await log.read(17, { maxRecords: 5 });
    expect(records.map((r) => r.offset)).toEqual([17, 18, 19, 20, 21]);
    expect(records.map((r) => text(r.value))).toEqual(["w8", "v9", "w9", "v10", "w10"]);
    expect(await log.read(60)).toEqual([]);
  });

  it("10. maxBytes counts whole batches and always serves at least one", async () => {
    const log = await openLog();
    for (let i = 0; i < 5; i++) await log.append([kv("k", "x".repeat(1000))]);
    expect((await log.read(0, { maxBytes: 10 })).length).toBe(1);
    expect((await log.read(0, { maxBytes: 2 * 1100 })).length).toBe(2);
  });

  it("11. reads outside [logStartOffset, highWatermark] are OFFSET_OUT_OF_RANGE", async () => {
    const log = await openLog();
    await log.append([kv("a", "1"), kv("b", "2"), kv("c", "3")]);
    await expect(log.read(4)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
    await expect(log.read(-1)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
    await log.deleteRecordsBefore(2);
    await expect(log.read(1)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
    expect((await log.read(2)).map((r) => r.offset)).toEqual([2]);
  });

  it("12. records below the log start offset inside a batch are not served", async () => {
    const log = await openLog();
    await log.append([kv("a", "1"), kv("b", "2"), kv("c", "3")]);
    await log.deleteRecordsBefore(1);
    expect((await log.read(1)).map((r) => r.offset)).toEqual([1, 2]);
  });

  it("13. a closed log refuses every operation with LOG_CLOSED", async () => {
    const log = await PartitionLog.open({ dir: tempDir() });
    await log.close();
    await expect(log.append([kv("a", "1")])).rejects.toMatchObject({ code: "LOG_CLOSED" });
    await expect(log.read(0)).rejects.toMatchObject({ code: "LOG_CLOSED" });
    await expect(log.roll()).rejects.toMatchObject({ code: "LOG_CLOSED" });
  });

  it("14. offset gaps (as compaction leaves them) are skipped: a read returns the next offset that exists", async () => {
    const dir = tempDir();
    const full = encodeRecordBatch([kv("a", "0"), kv("b", "1"), kv("c", "2"), kv("d", "3")], {
      baseOffset: 0,
      appendTimeMs: 1,
    });
    const { header, records } = decodeBatch(full);
    const sparse = rebuildBatch(header, [records[0]!, records[2]!]);
    const later = encodeRecordBatch([kv("e", "10"), kv("f", "11")], { baseOffset: 10, appendTimeMs: 1 });
    fs.writeFileSync(path.join(dir, "00000000000000000000.log"), Buffer.concat([sparse, later]));
    const log = await openLog({ dir });
    expect(log.logEndOffset).toBe(12);
    expect((await log.read(1)).map((r) => r.offset)).toEqual([2, 10, 11]);
    expect((await log.read(3)).map((r) => r.offset)).toEqual([10, 11]);
    expect((await log.read(0, { maxRecords: 2 })).map((r) => text(r.value))).toEqual(["0", "2"]);
    expect((await log.append([kv("g", "12")])).baseOffset).toBe(12);
  });

  it("15. reads start from the sparse index position, not from the segment start", async () => {
    const log = await openLog();
    for (let i = 0; i < 200; i++) await log.append([kv(`k${i}`, "x".repeat(500))]);
    const segment = log.segmentObjects[0]!;
    expect(segment.offsetIndex.entries).toBeGreaterThan(10);
    const position = segment.lookup(150);
    expect(position).toBeGreaterThan(100 * 500);
    const cursor = segment.batches(position);
    expect(cursor.next()).toBe(true);
    const firstScanned = decodeBatch(cursor.bytes()).header;
    expect(firstScanned.lastOffset).toBeLessThanOrEqual(150);
    expect(firstScanned.lastOffset).toBeGreaterThan(140);
    expect((await log.read(150, { maxRecords: 1 }))[0]!.offset).toBe(150);
  });

  it("16. readBatches serves whole stored batches undecoded, across segments, bounded like read", async () => {
    const log = await openLog({ config: { "segment.bytes": 400 } });
    for (let i = 0; i < 12; i++) await log.append([kv(`a${i}`, "x".repeat(40)), kv(`b${i}`, "y".repeat(40))]);
    expect(log.segments().length).toBeGreaterThan(2);
    const { bytes, nextOffset } = await log.readBatches(5, { maxBytes: 1 << 20 });
    expect(nextOffset).toBe(24);
    const offsets: number[] = [];
    for (let at = 0; at < bytes.length; ) {
      const { header, records } = decodeBatch(bytes, at);
      offsets.push(...records.map((r) => r.offset));
      at += header.sizeBytes;
    }
    expect(offsets).toEqual(Array.from({ length: 20 }, (_, i) => i + 4));
    const one = await log.readBatches(0, { maxBytes: 1 });
    expect([decodeBatch(one.bytes).header.sizeBytes, one.nextOffset]).toEqual([one.bytes.length, 2]);
    await expect(log.readBatches(25)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
    expect((await log.readBatches(24)).bytes.length).toBe(0);
  });

  it("18. readBatches into a caller buffer: the same batches as a view of it, contiguous across segments", async () => {
    const log = await openLog({ config: { "segment.bytes": 400 } });
    for (let i = 0; i < 12; i++) await log.append([kv(`a${i}`, "x".repeat(40)), kv(`b${i}`, "y".repeat(40))]);
    const fresh = await log.readBatches(5, { maxBytes: 1 << 20 });
    const into = Buffer.alloc(1 << 16);
    const reused = await log.readBatches(5, { into });
    expect(reused.bytes.buffer).toBe(into.buffer);
    expect(reused.bytes.byteOffset).toBe(into.byteOffset);
    expect([reused.bytes.equals(fresh.bytes), reused.nextOffset]).toEqual([true, fresh.nextOffset]);
    // Bounded by the buffer; a first batch larger than it still comes back, in a buffer of its own.
    const batchSize = decodeBatch(fresh.bytes).header.sizeBytes;
    const small = await log.readBatches(5, { into: Buffer.alloc(batchSize * 2 + 1) });
    expect([small.bytes.length, small.nextOffset]).toEqual([batchSize * 2, 8]);
    const tiny = Buffer.alloc(8);
    const over = await log.readBatches(5, { into: tiny });
    expect([over.bytes.buffer === tiny.buffer, over.bytes.length, over.nextOffset]).toEqual([
      false,
      batchSize,
      6,
    ]);
  });

  it("19. a sequential reader resumes where its last read stopped, and a point lookup reads one batch", async () => {
    const log = await openLog();
    for (let i = 0; i < 50; i++)
      await log.append([kv(`k${i}`, "v".repeat(300)), kv(`j${i}`, "w".repeat(300))]);
    const segment = log.segmentObjects[0]!;
    const read = vi.spyOn(segment, "readLog");
    const page = await log.read(40, { maxBytes: 3000 });
    expect(page.map((r) => r.offset)).toEqual([40, 41, 42, 43, 44, 45, 46, 47]);
    // Resumes at the batch after the page (the read hint), past the index floor before it.
    const hint = segment.readHint!;
    expect(hint.afterOffset).toBe(47);
    expect(hint.position).toBeGreaterThan(segment.lookup(48));
    read.mockClear();
    expect((await log.read(48, { maxRecords: 1 }))[0]!.offset).toBe(48);
    expect(read.mock.calls.map((call) => call[1])).toEqual([hint.position, hint.position]);
    // The point lookup read its one batch, not a whole fetch's worth of bytes.
    const batchSize = decodeBatch((await log.readBatches(48, { maxBytes: 1 })).bytes).header.sizeBytes;
    expect(read.mock.calls[1]![0].length).toBe(batchSize);
  });

  it("20. a large byte budget under maxRecords reads about what those records take, window after window", async () => {
    const log = await openLog();
    await log.append([kv("small", "s")]);
    for (let i = 1; i < 40; i++) await log.append([kv(`k${i}`, "v".repeat(2000))]);
    const segment = log.segmentObjects[0]!;
    const read = vi.spyOn(segment, "readLog");
    // The first batch is tiny, so the first window (sized from it) ends before the big ones.
    const records = await log.read(0, { maxRecords: 5, maxBytes: 64 << 20 });
    expect(records.map((r) => [r.offset, r.value!.length])).toEqual([
      [0, 1],
      [1, 2000],
      [2, 2000],
      [3, 2000],
      [4, 2000],
    ]);
    const windows = read.mock.calls.filter((call) => call[0].length > 8192);
    expect(windows.length).toBeGreaterThan(0);
    const windowBytes = read.mock.calls.reduce((sum, call) => sum + (call[2] ?? call[0].length), 0);
    expect(windowBytes).toBeLessThan(segment.sizeBytes / 2);
    read.mockRestore();
    // Everything still comes back, in order, when the budget is larger than a window.
    const all = await log.readBatches(0, { maxBytes: 64 << 20 });
    expect(all.nextOffset).toBe(40);
    expect(all.bytes.length).toBe(segment.sizeBytes);
  });

  it("17. group commit: appends in flight when the log closes still resolve, durable", async () => {
    const dir = tempDir();
    const log = await PartitionLog.open({ dir, durability: "group-commit" });
    const pending = Array.from({ length: 5 }, (_, i) => log.append([kv(`k${i}`, `v${i}`)]));
    await log.close();
    expect((await Promise.all(pending)).map((r) => r.baseOffset)).toEqual([0, 1, 2, 3, 4]);
    const reopened = await openLog({ dir });
    expect(reopened.logEndOffset).toBe(5);
  });

  it("21. beforeWrite is asked at each append's write, queued ones too, and again after a roll: a throw refuses that append", async () => {
    const dir = tempDir();
    const asked: number[] = [];
    const log = await openLog({
      dir,
      // The second batch does not fit the first segment: it rolls, then is asked again, and refused.
      config: { "segment.bytes": "120" },
      beforeWrite: () => {
        asked.push(log.logEndOffset);
        if (asked.length === 3) throw new Error("fenced");
      },
    });
    // Started together: the second and third wait behind the first and are asked at their turn.
    const [a, b, c] = [
      log.append([kv("a", "x".repeat(40))]),
      log.append([kv("b", "2")]),
      log.append([kv("c", "3")]),
    ];
    expect(await a).toEqual({ baseOffset: 0, lastOffset: 0 });
    await expect(b).rejects.toThrow("fenced");
    expect(await c).toEqual({ baseOffset: 1, lastOffset: 1 });
    expect(asked).toEqual([0, 1, 1, 1]);
    const reopened = await openLog({ dir });
    expect((await reopened.read(0)).map((r) => r.key?.toString())).toEqual(["a", "c"]);
  });
});
