import { encodeRecordBatch } from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { LogInvariantError } from "../src/invariant";
import { kv, openLog, replayLog, text } from "./helpers";

// The paired assertions (src/invariant.ts) must fire on the layouts they forbid and stay silent on
// every layout the log itself makes; the rest of the suite covers the second half, these the first.
describe("log store invariants", () => {
  it("a segment refuses bytes below its next offset and bytes that are not whole batches", async () => {
    const log = await openLog();
    await log.append([kv("a", "1"), kv("b", "2")]);
    const segment = log.activeSegment;
    const sizeBefore = segment.sizeBytes;
    const stale = encodeRecordBatch([kv("c", "3")], { baseOffset: 0, appendTimeMs: 1 });
    expect(() => segment.append(stale)).toThrow(LogInvariantError);
    expect(() => segment.append(stale.subarray(0, 10))).toThrow(/below its next offset/);
    expect(segment.sizeBytes).toBe(sizeBefore);
    // What was refused never reached the bookkeeping: the log reads back its own two records.
    expect((await replayLog(log)).map((r) => text(r.value))).toEqual(["1", "2"]);
  });

  it("a swap must replace consecutive live segments with segments inside their range", async () => {
    const log = await openLog({ config: { "segment.bytes": 120 } });
    for (let i = 0; i < 6; i++) await log.append([kv(`k${i}`, `value-${i}`)]);
    const [first, second, third] = log.segmentObjects;
    expect(third).toBeDefined();
    const listBefore = [...log.segmentObjects];
    // Not consecutive: the first and the third with the second left between them.
    expect(() => log.replaceSegments([], [first!, third!])).toThrow(/consecutive live segments/);
    // The active segment is never swapped out.
    expect(() => log.replaceSegments([], [log.activeSegment])).toThrow(/active segment/);
    // A replacement reaching past the range it replaces.
    expect(() => log.replaceSegments([third!], [first!, second!])).toThrow(/inside the range/);
    expect(log.segmentObjects).toEqual(listBefore);
  });
});
