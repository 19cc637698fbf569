import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { kv, openLog, TestClock, tempDir } from "./helpers";

const DAY = 86_400_000;

/** One batch per segment (segment.bytes fits exactly one 100-byte-value batch). */
async function oneBatchPerSegment(
  timestamps: number[],
  config: Record<string, string | number>,
  clock = new TestClock(),
) {
  const log = await openLog({
    clock,
    config: { "segment.bytes": 200, "file.delete.delay.ms": 0, ...config },
  });
  for (const [i, ts] of timestamps.entries()) await log.append([kv(`k${i}`, "x".repeat(100), ts)]);
  return log;
}

describe("retention", () => {
  it.each([
    {
      name: "1. by time: closed segments whose max timestamp is older than retention.ms go, oldest first",
      days: [1, 2, 9, 9],
      deleted: [0, 1],
    },
    {
      name: "2. the scan stops at the first segment that does not qualify (no skipping)",
      days: [1, 9, 1, 9],
      deleted: [0],
    },
  ])("$name", async ({ days, deleted }) => {
    const log = await oneBatchPerSegment(
      days.map((d) => d * DAY),
      { "retention.ms": 7 * DAY },
      new TestClock(10 * DAY),
    );
    const result = await log.applyRetention();
    expect(result.deleted.map((s) => [s.baseOffset, s.reason])).toEqual(deleted.map((o) => [o, "time"]));
    // One record per segment: the first segment kept starts at the count of those deleted.
    const kept = days.map((_, i) => i).slice(deleted.length);
    expect(result.logStartOffset).toBe(kept[0]);
    expect(log.logStartOffset).toBe(kept[0]);
    expect(log.segments().map((s) => s.baseOffset)).toEqual(kept);
  });

  it("3. retention.ms = -1 keeps everything; retention.ms = 0 deletes anything in the past", async () => {
    const clock = new TestClock(10 * DAY);
    const forever = await oneBatchPerSegment([1, 2, 3], { "retention.ms": -1 }, clock);
    expect((await forever.applyRetention()).deleted).toEqual([]);
    const zero = await oneBatchPerSegment([1, 2, 10 * DAY], { "retention.ms": 0 }, clock);
    expect((await zero.applyRetention()).deleted.map((s) => s.baseOffset)).toEqual([0, 1]);
  });

  it("4. a non-empty active segment that breaches is rolled, then deleted; an empty one never is", async () => {
    const clock = new TestClock(10 * DAY);
    const log = await oneBatchPerSegment([1, 2], { "retention.ms": DAY }, clock);
    const result = await log.applyRetention();
    expect(result.deleted.map((s) => s.baseOffset)).toEqual([0, 1]);
    expect(log.segments()).toMatchObject([{ baseOffset: 2, sizeBytes: 0, active: true }]);
    expect(log.logStartOffset).toBe(2);
    expect(log.logEndOffset).toBe(2);
    expect((await log.applyRetention()).deleted).toEqual([]);
    expect((await log.append([kv("n", "1")])).baseOffset).toBe(2);
  });

  it("5. by size: retention.bytes counts the active segment and at least that many bytes stay", async () => {
    const log = await oneBatchPerSegment([1, 2, 3, 4, 5], { "retention.ms": -1, "retention.bytes": 1 });
    const segmentBytes = log.segments()[0]!.sizeBytes;
    await log.applyRetention();
    const full = await oneBatchPerSegment([1, 2, 3, 4, 5], {
      "retention.ms": -1,
      "retention.bytes": 2 * segmentBytes + 1,
    });
    const result = await full.applyRetention();
    expect(result.deleted.map((s) => [s.baseOffset, s.reason])).toEqual([
      [0, "size"],
      [1, "size"],
    ]);
    expect(full.segments().reduce((sum, s) => sum + s.sizeBytes, 0)).toBe(3 * segmentBytes);
    const exact = await oneBatchPerSegment([1, 2, 3], {
      "retention.ms": -1,
      "retention.bytes": 2 * segmentBytes,
    });
    expect((await exact.applyRetention()).deleted.map((s) => s.baseOffset)).toEqual([0]);
  });

  it("6. retention.bytes = 0 deletes everything, rolling the active segment first", async () => {
    const log = await oneBatchPerSegment([1, 2], { "retention.ms": -1, "retention.bytes": 0 });
    const result = await log.applyRetention();
    expect(result.deleted.map((s) => s.baseOffset)).toEqual([0, 1]);
    expect(log.segments()).toMatchObject([{ baseOffset: 2, active: true, sizeBytes: 0 }]);
  });

  it("7. compact-only topics apply only the log-start rule; compact,delete applies time too", async () => {
    const clock = new TestClock(10 * DAY);
    const compact = await oneBatchPerSegment(
      [1, 2, 3],
      { "cleanup.policy": "compact", "retention.ms": DAY },
      clock,
    );
    expect((await compact.applyRetention()).deleted).toEqual([]);
    const both = await oneBatchPerSegment(
      [1, 2, 3],
      { "cleanup.policy": "compact,delete", "retention.ms": DAY },
      clock,
    );
    expect((await both.applyRetention()).deleted.map((s) => s.baseOffset)).toEqual([0, 1, 2]);
  });

  it("8. deleteRecordsBefore: refused on compact-only, moves the start on delete, segments go at retention", async () => {
    const compact = await oneBatchPerSegment([1, 2], { "cleanup.policy": "compact" });
    await expect(compact.deleteRecordsBefore(1)).rejects.toMatchObject({ code: "POLICY_VIOLATION" });
    const log = await oneBatchPerSegment([1, 2, 3, 4], { "retention.ms": -1 });
    expect(await log.deleteRecordsBefore(2)).toEqual({ logStartOffset: 2 });
    expect(log.segments().length).toBe(4);
    expect(await log.deleteRecordsBefore(1)).toEqual({ logStartOffset: 2 });
    await expect(log.deleteRecordsBefore(5)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
    const result = await log.applyRetention();
    expect(result.deleted.map((s) => [s.baseOffset, s.reason])).toEqual([
      [0, "log-start-offset"],
      [1, "log-start-offset"],
    ]);
    const both = await oneBatchPerSegment([1, 2], { "cleanup.policy": "compact,delete", "retention.ms": -1 });
    expect(await both.deleteRecordsBefore(1)).toEqual({ logStartOffset: 1 });
  });

  it("9. the log-start rule never deletes the active segment, even when all its records are below the start", async () => {
    const log = await oneBatchPerSegment([1, 2], { "retention.ms": -1 });
    await log.deleteRecordsBefore(2);
    expect((await log.applyRetention()).deleted.map((s) => s.baseOffset)).toEqual([0]);
    expect(log.segments().map((s) => s.baseOffset)).toEqual([1]);
    await expect(log.read(1)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
    expect(await log.read(2)).toEqual([]);
  });

  it("10. deleted files are renamed .deleted, removed after file.delete.delay.ms, and state survives reopen", async () => {
    const dir = tempDir();
    const clock = new TestClock(10 * DAY);
    const log = await openLog({
      dir,
      clock,
      config: { "segment.bytes": 200, "retention.ms": DAY, "file.delete.delay.ms": 60_000 },
    });
    for (const ts of [1, 2, 10 * DAY]) await log.append([kv("k", "x".repeat(100), ts)]);
    await log.applyRetention();
    expect(fs.readdirSync(dir).filter((n) => n.endsWith(".deleted")).length).toBe(6);
    await log.close();
    expect(fs.readdirSync(dir).filter((n) => n.endsWith(".deleted"))).toEqual([]);
    const reopened = await openLog({ dir, config: { "segment.bytes": 200 } });
    expect(reopened.logStartOffset).toBe(2);
    expect(reopened.segments().map((s) => s.baseOffset)).toEqual([2]);
    await expect(reopened.read(1)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
  });

  it("11. the size rule measures the log after the log-start rule has run, as Kafka does", async () => {
    const log = await oneBatchPerSegment([1, 2, 3, 4, 5], { "retention.ms": -1 });
    const segmentBytes = log.segments()[0]!.sizeBytes;
    await log.close();
    const reopened = await openLog({
      dir: log.dir,
      config: { "segment.bytes": 200, "retention.ms": -1, "retention.bytes": 2 * segmentBytes + 1 },
    });
    await reopened.deleteRecordsBefore(2);
    const result = await reopened.applyRetention();
    expect(result.deleted.map((s) => [s.baseOffset, s.reason])).toEqual([
      [0, "log-start-offset"],
      [1, "log-start-offset"],
    ]);
    expect(reopened.segments().map((s) => s.baseOffset)).toEqual([2, 3, 4]);
  });
});
