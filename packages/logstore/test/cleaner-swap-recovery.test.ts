import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeRecordBatch } from "@lastword/record-batch";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recoverSwapFiles, segmentStem } from "../src/segment-swap";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "swap-recovery-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A .log holding one batch per offset in [from, to), tagged so tests can tell old from new. */
function logBytes(from: number, to: number, tag: string): Buffer {
  const batches: Buffer[] = [];
  for (let offset = from; offset < to; offset++) {
    batches.push(
      encodeRecordBatch([{ key: Buffer.from("k"), value: Buffer.from(tag) }], {
        baseOffset: offset,
        appendTimeMs: 1,
      }),
    );
  }
  return Buffer.concat(batches);
}

async function put(base: number, ext: string, bytes: Buffer | string, suffix = ""): Promise<void> {
  await writeFile(join(dir, `${segmentStem(base)}.${ext}${suffix}`), bytes);
}

const SEGMENT_FILES = ["index", "log", "timeindex"] as const;

async function oldSegment(base: number, next: number): Promise<void> {
  for (const ext of SEGMENT_FILES) await put(base, ext, ext === "log" ? logBytes(base, next, "old") : "");
}

/** The file names of whole segments at `bases`, sorted as `names()` lists them. */
function segmentFiles(...bases: number[]): string[] {
  return bases.flatMap((base) => SEGMENT_FILES.map((ext) => `${segmentStem(base)}.${ext}`));
}

async function names(): Promise<string[]> {
  return (await readdir(dir)).sort();
}

describe("swap recovery (LogLoader rules)", () => {
  it("1. rolls back when a .cleaned file is left: originals stay, every temp file goes", async () => {
    await oldSegment(0, 5);
    await oldSegment(5, 10);
    await put(0, "log", logBytes(0, 10, "new"), ".cleaned");
    await put(0, "index", "", ".swap");
    const report = await recoverSwapFiles(dir);
    expect(report).toEqual({ rolledBack: [0], rolledForward: [] });
    expect(await names()).toEqual(segmentFiles(0, 5));
    expect((await readFile(join(dir, `${segmentStem(0)}.log`))).equals(logBytes(0, 5, "old"))).toBe(true);
  });

  it("2. rolls forward once every file of the group is a .swap: old segments in range are replaced", async () => {
    await oldSegment(0, 5);
    await oldSegment(5, 10);
    await oldSegment(10, 12);
    await put(0, "log", logBytes(0, 10, "new"), ".swap");
    await put(0, "index", "", ".swap");
    await put(0, "timeindex", "", ".swap");
    const report = await recoverSwapFiles(dir);
    expect(report).toEqual({ rolledBack: [], rolledForward: [0] });
    expect(await names()).toEqual(segmentFiles(0, 10));
    expect((await readFile(join(dir, `${segmentStem(0)}.log`))).equals(logBytes(0, 10, "new"))).toBe(true);
  });

  it("3. deletes .deleted files left by a finished swap", async () => {
    await oldSegment(0, 3);
    await put(7, "log", logBytes(7, 9, "old"), ".deleted");
    await recoverSwapFiles(dir);
    expect(await names()).not.toContain(`${segmentStem(7)}.log.deleted`);
  });

  it("4. replaces an old trailing segment that cleaning emptied, using the recorded range", async () => {
    // The new segment holds offsets 0..4 only; the old segment at 5 lost every record.
    await oldSegment(0, 5);
    await oldSegment(5, 10);
    await oldSegment(10, 12);
    await put(0, "log", logBytes(0, 5, "new"), ".swap");
    await put(0, `swaprange-${segmentStem(10)}`, "", ".swap");
    await recoverSwapFiles(dir);
    expect(await names()).toEqual([`${segmentStem(0)}.log`, ...segmentFiles(10)]);
  });

  it("5. drops index .swap files whose .log already took its final name", async () => {
    await put(0, "log", logBytes(0, 4, "new"));
    await put(0, "index", "", ".swap");
    await put(0, `swaprange-${segmentStem(9)}`, "", ".swap");
    const report = await recoverSwapFiles(dir);
    expect(report.rolledForward).toEqual([]);
    expect(await names()).toEqual([`${segmentStem(0)}.log`]);
  });

  it("6. leaves a directory without temp files untouched", async () => {
    await oldSegment(0, 3);
    await writeFile(join(dir, "cleaner-offset-checkpoint"), "0\n");
    const before = await names();
    expect(await recoverSwapFiles(dir)).toEqual({ rolledBack: [], rolledForward: [] });
    expect(await names()).toEqual(before);
  });
});
