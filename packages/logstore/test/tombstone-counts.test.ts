import fs from "node:fs";
import path from "node:path";
import { decodeBatch } from "@lastword/record-batch";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PartitionLog } from "../src/index";
import { Segment } from "../src/segment";
import { TOMBSTONE_COUNT_CHECKPOINT } from "../src/tombstone-counts";
import { kv, openLog, TestClock, tempDir } from "./helpers";

// `segments()[].tombstones`: records with a key and a null value, per segment, exact through
// append, roll, clean, retention, deleteRecordsBefore, recovery truncation and reopen, without a
// scan on open when the checkpoint covers the closed segments.

/** Tombstones per segment decoded straight from the `.log` files, independent of the log's count. */
function tombstonesOnDisk(log: PartitionLog): number[] {
  return log.segmentObjects.map((segment) => {
    const bytes = fs.readFileSync(segment.filePath("log"));
    let count = 0;
    for (let at = 0; at < bytes.length; ) {
      const { header, records } = decodeBatch(bytes, at);
      count += records.filter((r) => r.key !== null && r.value === null).length;
      at += header.sizeBytes;
    }
    return count;
  });
}

const counts = (log: PartitionLog) => log.segments().map((s) => s.tombstones);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("tombstone counts", () => {
  it("1. append counts keyed null values only (not empty values, not keyless nulls), active segment included", async () => {
    const log = await openLog({ config: { "cleanup.policy": "delete" } });
    await log.append([kv("a", null), kv("b", ""), kv(null, null), kv("c", "1")]);
    expect(counts(log)).toEqual([1]);
    await log.roll();
    await log.append([kv("a", null), kv("d", null)]);
    expect(counts(log)).toEqual([1, 2]);
    expect(counts(log)).toEqual(tombstonesOnDisk(log));
  });

  it("2. reopen takes closed segments' counts from the checkpoint, with no scan", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "segment.bytes": 300 } });
    for (let i = 0; i < 30; i++) await log.append([kv(`k${i}`, i % 3 === 0 ? null : "value")]);
    const before = counts(log);
    expect(log.segments().length).toBeGreaterThan(3);
    await log.close();
    const scan = vi.spyOn(Segment.prototype, "scanTombstones");
    const reopened = await openLog({ dir, config: { "segment.bytes": 300 } });
    expect(counts(reopened)).toEqual(before);
    expect(scan).not.toHaveBeenCalled();
  });

  it("3. a legacy directory (no checkpoint) is scanned once, then the checkpoint serves", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "segment.bytes": 300 } });
    for (let i = 0; i < 30; i++) await log.append([kv(`k${i}`, i % 2 === 0 ? null : "value")]);
    const before = counts(log);
    await log.close();
    fs.rmSync(path.join(dir, TOMBSTONE_COUNT_CHECKPOINT));
    const scan = vi.spyOn(Segment.prototype, "scanTombstones");
    const legacy = await openLog({ dir, config: { "segment.bytes": 300 } });
    expect(counts(legacy)).toEqual(before);
    // Every closed segment the recovery scan did not read was scanned, once.
    expect(scan.mock.calls.length).toBe(before.length - 1);
    await legacy.close();
    scan.mockClear();
    const again = await openLog({ dir, config: { "segment.bytes": 300 } });
    expect(counts(again)).toEqual(before);
    expect(scan).not.toHaveBeenCalled();
  });

  it("4. a checkpoint entry that no longer matches its segment (crash after a cleaner swap) is rescanned", async () => {
    const dir = tempDir();
    const clock = new TestClock();
    const config = { "cleanup.policy": "compact", "segment.bytes": 300, "delete.retention.ms": 0 };
    const log = await openLog({ dir, clock, config });
    for (let i = 0; i < 30; i++) await log.append([kv(`k${i % 4}`, i % 5 === 0 ? null : "value")]);
    await log.roll();
    const stale = fs.readFileSync(path.join(dir, TOMBSTONE_COUNT_CHECKPOINT));
    const result = await log.clean({ force: true });
    expect(result.segmentsWritten).toBeGreaterThan(0);
    const after = counts(log);
    expect(after).toEqual(tombstonesOnDisk(log));
    await log.close();
    fs.writeFileSync(path.join(dir, TOMBSTONE_COUNT_CHECKPOINT), stale);
    const scan = vi.spyOn(Segment.prototype, "scanTombstones");
    const reopened = await openLog({ dir, clock, config });
    expect(counts(reopened)).toEqual(after);
    expect(scan).toHaveBeenCalled();
  });

  it("5. cleaning keeps counts exact: superseded and expired tombstones leave the counts", async () => {
    const clock = new TestClock();
    const log = await openLog({
      clock,
      config: { "cleanup.policy": "compact", "delete.retention.ms": 1000 },
    });
    await log.append([kv("a", "1"), kv("b", null), kv("c", null)]);
    await log.append([kv("b", "2"), kv("d", null)]);
    await log.roll();
    await log.append([kv("e", null)]);
    expect(counts(log)).toEqual([3, 1]);
    await log.clean({ force: true });
    // b's tombstone was superseded; c and d stay until their horizon.
    expect(counts(log)).toEqual([2, 1]);
    clock.advance(1000);
    const result = await log.clean({ force: true });
    expect(result.tombstonesRemoved).toBe(2);
    expect(counts(log)).toEqual([0, 1]);
    expect(counts(log)).toEqual(tombstonesOnDisk(log));
  });

  it("6. retention and deleteRecordsBefore: surviving segments keep their counts, deleted ones go", async () => {
    const log = await openLog({ config: { "cleanup.policy": "delete", "segment.bytes": 300 } });
    for (let i = 0; i < 30; i++) await log.append([kv(`k${i}`, i % 4 === 0 ? null : "value")]);
    const before = log.segments();
    const cut = before[2]!.baseOffset;
    await log.deleteRecordsBefore(cut + 1);
    // Still physically there until retention removes whole segments.
    expect(counts(log)).toEqual(before.map((s) => s.tombstones));
    await log.applyRetention();
    expect(log.segments().map((s) => [s.baseOffset, s.tombstones])).toEqual(
      before.slice(2).map((s) => [s.baseOffset, s.tombstones]),
    );
    expect(counts(log)).toEqual(tombstonesOnDisk(log));
  });

  it("7. a torn tail cut by recovery leaves the active segment's count without its tombstones", async () => {
    const dir = tempDir();
    const log = await openLog({ dir });
    await log.append([kv("a", null), kv("b", "1")]);
    await log.append([kv("c", null), kv("d", null)]);
    await log.close();
    const file = path.join(dir, `${"0".padStart(20, "0")}.log`);
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 5));
    const reopened = await openLog({ dir });
    expect(reopened.recovery.truncatedBytes).toBeGreaterThan(0);
    expect(counts(reopened)).toEqual([1]);
    await reopened.append([kv("e", null)]);
    expect(counts(reopened)).toEqual([2]);
    expect(counts(reopened)).toEqual(tombstonesOnDisk(reopened));
  });
});
