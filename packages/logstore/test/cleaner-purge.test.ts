import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { PartitionLog } from "../src/index";
import { kv, openLog, replayLog, TestClock, text } from "./helpers";

// The targeted rewrite behind an erasure (cleaner.ts `purge`): chosen closed segments lose one
// key's records below its tombstone and nothing a round would keep; the rest of the log is the
// next round's.

const view = (log: PartitionLog) =>
  replayLog(log).then((records) => records.map((r) => [r.offset, text(r.key), text(r.value)]));

/** Three closed segments: a-old, b-old | a-mid, b-mid | tombstone of a, then an active one. */
async function threeSegments(options: { clock?: TestClock; config?: Record<string, unknown> } = {}) {
  const log = await openLog({
    config: { "cleanup.policy": "compact", ...options.config },
    ...(options.clock && { clock: options.clock }),
  });
  await log.append([kv("a", "a-old"), kv("b", "b-old")]);
  await log.roll();
  await log.append([kv("a", "a-mid"), kv("b", "b-mid")]);
  await log.roll();
  const tombstone = await log.append([kv("a", null)]);
  await log.roll();
  await log.append([kv("c", "c")]);
  return { log, tombstone: tombstone.baseOffset };
}

describe("targeted rewrite", () => {
  it("1. removes the key's records below the offset from the chosen segments only, nothing else", async () => {
    const { log, tombstone } = await threeSegments();
    const result = await log.purgeKey(Buffer.from("a"), tombstone, [0]);
    expect([result.trigger, result.segmentsWritten, result.recordsRemoved]).toEqual(["targeted", 1, 1]);
    // b-old stays (a round would remove it); a-mid stays (its segment was not chosen).
    expect(await view(log)).toEqual([
      [1, "b", "b-old"],
      [2, "a", "a-mid"],
      [3, "b", "b-mid"],
      [4, "a", null],
      [5, "c", "c"],
    ]);
    await log.purgeKey(Buffer.from("a"), tombstone, [2, 4]);
    expect((await view(log)).filter(([, key]) => key === "a")).toEqual([[4, "a", null]]);
  });

  it("2. leaves segments min.compaction.lag.ms still protects", async () => {
    const clock = new TestClock();
    const { log, tombstone } = await threeSegments({ clock, config: { "min.compaction.lag.ms": 60_000 } });
    const result = await log.purgeKey(Buffer.from("a"), tombstone, [0, 2]);
    expect(result.segmentsWritten).toBe(0);
    expect((await view(log)).filter(([, key]) => key === "a")).toHaveLength(3);
    clock.advance(120_000);
    await log.purgeKey(Buffer.from("a"), tombstone, [0, 2]);
    expect((await view(log)).filter(([, key]) => key === "a")).toEqual([[4, "a", null]]);
  });

  it("3. fetches an evicted chosen segment back and rewrites it", async () => {
    const objects = new Map<string, Buffer>();
    const remote = { fetch: async (ref: string) => objects.get(ref)! };
    const log = await openLog({ config: { "cleanup.policy": "compact" }, remote });
    await log.append([kv("a", "a-old"), kv("b", "b-old")]);
    await log.roll();
    const tombstone = await log.append([kv("a", null)]);
    await log.roll();
    objects.set("s0", fs.readFileSync(path.join(log.dir, "00000000000000000000.log")));
    expect(await log.evictSegment(0, "s0")).toBe(true);
    await log.purgeKey(Buffer.from("a"), tombstone.baseOffset, [0]);
    expect(log.segments()[0]!.remote).toBe(false);
    expect(await view(log)).toEqual([
      [1, "b", "b-old"],
      [2, "a", null],
    ]);
  });
});
