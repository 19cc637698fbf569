import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { kv, openLog, TestClock, tempDir } from "./helpers";

const HOUR = 3_600_000;

describe("segment roll", () => {
  it("1. segment.bytes: rolls before an append when size + batch would exceed the limit", async () => {
    const log = await openLog({ config: { "segment.bytes": 300 } });
    const first = await log.append([kv("a", "x".repeat(100))]);
    const size = log.segments()[0]!.sizeBytes;
    await log.append([kv("b", "x".repeat(100))]);
    expect(log.segments().length).toBe(2 * size > 300 ? 2 : 1);
    await log.append([kv("c", "x".repeat(100))]);
    const segments = log.segments();
    expect(segments.every((s) => s.sizeBytes <= 300)).toBe(true);
    expect(segments[0]!.baseOffset).toBe(first.baseOffset);
    expect(segments.map((s) => s.active)).toEqual(segments.map((_, i) => i === segments.length - 1));
  });

  it("2. segment.ms: measured from the first batch's timestamp to the incoming batch's", async () => {
    const clock = new TestClock(0);
    const log = await openLog({ clock, config: { "segment.ms": HOUR } });
    await log.append([kv("a", "1", 1_000)]);
    await log.append([kv("b", "2", 1_000 + HOUR)]);
    expect(log.segments().length).toBe(1);
    await log.append([kv("c", "3", 1_001 + HOUR)]);
    expect(log.segments().map((s) => s.baseOffset)).toEqual([0, 2]);
    expect(log.segments()[1]!.firstTimestamp).toBe(1_001 + HOUR);
  });

  it("3. segment.jitter.ms shortens the time limit by a per-segment draw", async () => {
    const clock = new TestClock(0);
    const log = await openLog({
      clock,
      random: () => 0.5,
      config: { "segment.ms": HOUR, "segment.jitter.ms": 1_000 },
    });
    await log.append([kv("a", "1", 0)]);
    await log.append([kv("b", "2", HOUR - 500)]);
    expect(log.segments().length).toBe(1);
    await log.append([kv("c", "3", HOUR - 499)]);
    expect(log.segments().length).toBe(2);
  });

  it("4. KIP-354: on compacted topics max.compaction.lag.ms caps segment.ms; not on delete topics", async () => {
    for (const [policy, expected] of [
      ["compact", 2],
      ["delete", 1],
    ] as const) {
      const log = await openLog({
        config: { "cleanup.policy": policy, "segment.ms": HOUR, "max.compaction.lag.ms": 1_000 },
      });
      await log.append([kv("a", "1", 0)]);
      await log.append([kv("b", "2", 1_001)]);
      expect(log.segments().length).toBe(expected);
    }
  });

  it("5. a full offset index rolls the segment", async () => {
    // 24 bytes: 3 offset entries, 2 time entries; equal timestamps keep the time index at 1 entry.
    const log = await openLog({ config: { "segment.index.bytes": 24 } });
    for (let i = 0; i < 20; i++) await log.append([kv(`k${i}`, "x".repeat(3_000), 1_000)]);
    const segments = log.segments();
    expect(segments.length).toBeGreaterThan(1);
    const indexes = segments
      .slice(0, -1)
      .map((s) => fs.statSync(`${log.dir}/${String(s.baseOffset).padStart(20, "0")}.index`).size);
    expect(indexes).toEqual(indexes.map(() => 24));
  });

  it("6. roll() closes a non-empty active segment and is a no-op on an empty one", async () => {
    const log = await openLog();
    await log.roll();
    expect(log.segments().length).toBe(1);
    await log.append([kv("a", "1")]);
    await log.roll();
    await log.roll();
    expect(log.segments().map((s) => [s.baseOffset, s.active])).toEqual([
      [0, false],
      [1, true],
    ]);
    expect((await log.append([kv("b", "2")])).baseOffset).toBe(1);
  });

  it("7. beyond Kafka: maybeRoll() rolls an idle non-empty segment once its age passes the limit", async () => {
    const clock = new TestClock(10_000);
    const log = await openLog({ clock, config: { "segment.ms": HOUR } });
    expect(await log.maybeRoll()).toBe(false);
    expect(log.rollDueAt()).toBeNull();
    await log.append([kv("a", "1")]);
    expect(log.rollDueAt()).toBe(10_000 + HOUR + 1);
    clock.advance(HOUR);
    expect(await log.maybeRoll()).toBe(false);
    clock.advance(1);
    expect(await log.maybeRoll()).toBe(true);
    expect(log.segments().map((s) => s.active)).toEqual([false, true]);
    expect(await log.maybeRoll()).toBe(false);
  });

  it("8. maybeRoll() honours the KIP-354 cap on compacted topics", async () => {
    const clock = new TestClock(0);
    const log = await openLog({
      clock,
      config: { "cleanup.policy": "compact", "segment.ms": HOUR, "max.compaction.lag.ms": 60_000 },
    });
    await log.append([kv("a", "1")]);
    clock.advance(60_001);
    expect(await log.maybeRoll()).toBe(true);
  });

  it("9. rolled segments survive reopen with their ranges, counts and timestamps", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "segment.bytes": 400 } });
    for (let i = 0; i < 20; i++) await log.append([kv(`k${i}`, "v".repeat(50), 100 + i)]);
    const before = log.segments();
    await log.close();
    const reopened = await openLog({ dir, config: { "segment.bytes": 400 } });
    expect(reopened.segments()).toEqual(before);
  });
});
