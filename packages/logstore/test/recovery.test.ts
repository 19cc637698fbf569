import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { kv, openLog, tempDir, text } from "./helpers";

function segmentFile(dir: string, base: number, kind: string): string {
  return path.join(dir, `${String(base).padStart(20, "0")}.${kind}`);
}

/** Fixed-width keys keep every batch the same size, so byte positions are predictable. */
function key(i: number): string {
  return `k${String(i).padStart(4, "0")}`;
}

async function filledLog(dir: string, batches: number, config: Record<string, number> = {}) {
  const log = await openLog({ dir, config });
  for (let i = 0; i < batches; i++) await log.append([kv(key(i), `v${i}`.padEnd(200, "."))]);
  return log;
}

/**
 * A closed log of 30 one-record batches in 3,000-byte segments, with the first segment's bytes read
 * for a test to damage (it writes them back itself); every batch in it is `batchSize` bytes.
 */
async function closedFirstSegment() {
  const dir = tempDir();
  const log = await filledLog(dir, 30, { "segment.bytes": 3_000 });
  const second = log.segments()[1]!;
  await log.close();
  const file = segmentFile(dir, 0, "log");
  const bytes = fs.readFileSync(file);
  return { dir, second, file, bytes, batchSize: bytes.length / second.baseOffset };
}

describe("recovery on open", () => {
  it("1. a torn tail is truncated to the last whole batch and appends resume there", async () => {
    const dir = tempDir();
    const log = await filledLog(dir, 10);
    await log.close();
    const file = segmentFile(dir, 0, "log");
    const size = fs.statSync(file).size;
    fs.truncateSync(file, size - 40);
    const reopened = await openLog({ dir });
    expect(reopened.logEndOffset).toBe(9);
    expect(reopened.recovery.truncatedBytes).toBe(size - 40 - (size / 10) * 9);
    expect(await reopened.append([kv("new", "x")])).toEqual({ baseOffset: 9, lastOffset: 9 });
    expect((await reopened.read(8)).map((r) => text(r.key))).toEqual([key(8), "new"]);
  });

  it("2. garbage after the last batch is cut off", async () => {
    const dir = tempDir();
    await (await filledLog(dir, 3)).close();
    fs.appendFileSync(segmentFile(dir, 0, "log"), Buffer.from("not a record batch at all, just noise"));
    const reopened = await openLog({ dir });
    expect(reopened.logEndOffset).toBe(3);
    expect(reopened.recovery.truncatedBytes).toBe(37);
  });

  it("3. a tail batch with a bad CRC in the active segment is dropped", async () => {
    const dir = tempDir();
    await (await filledLog(dir, 4)).close();
    const file = segmentFile(dir, 0, "log");
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 5]! ^= 0xff;
    fs.writeFileSync(file, bytes);
    const reopened = await openLog({ dir });
    expect(reopened.logEndOffset).toBe(3);
  });

  it("4. missing and damaged indexes are rebuilt, and lookups through them still find offsets", async () => {
    const dir = tempDir();
    const log = await filledLog(dir, 120, { "segment.bytes": 12_000 });
    const bases = log.segments().map((s) => s.baseOffset);
    await log.close();
    const original = fs.readFileSync(segmentFile(dir, 0, "index"));
    expect(original.length).toBeGreaterThan(0);
    fs.rmSync(segmentFile(dir, 0, "index"));
    fs.rmSync(segmentFile(dir, 0, "timeindex"));
    fs.writeFileSync(segmentFile(dir, bases[1]!, "index"), Buffer.from("garbage!!"));
    const reopened = await openLog({ dir });
    expect(fs.readFileSync(segmentFile(dir, 0, "index"))).toEqual(original);
    expect(fs.statSync(segmentFile(dir, bases[1]!, "index")).size % 8).toBe(0);
    for (const offset of [0, 37, bases[1]!, bases[1]! + 5, 119]) {
      const [first] = await reopened.read(offset, { maxRecords: 1 });
      expect(first!.offset).toBe(offset);
      expect(text(first!.key)).toBe(key(offset));
    }
  });

  it("5. a corrupt batch inside a closed segment is CORRUPT_SEGMENT, never served", async () => {
    const { dir, second, file, bytes, batchSize } = await closedFirstSegment();
    bytes[batchSize * 3 + 100]! ^= 0x01;
    fs.writeFileSync(file, bytes);
    const reopened = await openLog({ dir });
    expect((await reopened.read(0, { maxRecords: 10 })).map((r) => r.offset)).toEqual([0, 1, 2]);
    await expect(reopened.read(3)).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
    // Batches after it are intact and CRC-checked on their own, so they are still served.
    expect((await reopened.read(second.baseOffset - 1, { maxRecords: 1 }))[0]!.offset).toBe(
      second.baseOffset - 1,
    );
    await expect(reopened.readBatches(3)).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
    const into = Buffer.alloc(1 << 16);
    await expect(reopened.readBatches(3, { into })).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
    // Reads that served the batches around it never mark it verified: it stays unserved.
    await expect(reopened.read(3)).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
    expect((await reopened.readBatches(0, { into })).nextOffset).toBe(3);
    expect((await reopened.read(second.baseOffset, { maxRecords: 1 }))[0]!.offset).toBe(second.baseOffset);
    expect(reopened.logEndOffset).toBe(30);
  });

  it("6. a closed segment whose header bytes are garbage keeps its offsets and reports corruption", async () => {
    const { dir, second, file, bytes, batchSize } = await closedFirstSegment();
    bytes.fill(0xee, batchSize, batchSize + 12);
    fs.writeFileSync(file, bytes);
    const reopened = await openLog({ dir });
    expect(reopened.recovery.corruptSegments).toEqual([0]);
    expect(reopened.segments()[0]!.lastOffset).toBe(second.baseOffset - 1);
    await expect(reopened.read(2)).rejects.toMatchObject({ code: "CORRUPT_SEGMENT" });
    expect(reopened.logEndOffset).toBe(30);
  });

  it("7. log start offset and recovery point checkpoints persist across reopen", async () => {
    const dir = tempDir();
    const log = await filledLog(dir, 10);
    await log.deleteRecordsBefore(4);
    await log.close();
    expect(fs.readFileSync(path.join(dir, "log-start-offset-checkpoint"), "utf8")).toBe("0\n4\n");
    expect(fs.readFileSync(path.join(dir, "recovery-point-offset-checkpoint"), "utf8")).toBe("0\n10\n");
    const reopened = await openLog({ dir });
    expect(reopened.logStartOffset).toBe(4);
    await expect(reopened.read(3)).rejects.toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
  });

  it("8. leftover .cleaned, .swap-less .deleted and orphan index files are ignored or removed", async () => {
    const dir = tempDir();
    await (await filledLog(dir, 3)).close();
    fs.writeFileSync(segmentFile(dir, 0, "log.cleaned"), "half-written");
    fs.writeFileSync(segmentFile(dir, 7, "log.deleted"), "old");
    fs.writeFileSync(segmentFile(dir, 99, "index"), "orphan");
    const reopened = await openLog({ dir });
    expect(reopened.logEndOffset).toBe(3);
    expect(fs.readdirSync(dir).filter((n) => /cleaned|deleted|0099\./.test(n))).toEqual([]);
  });
});
