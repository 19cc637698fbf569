import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeRecordBatch, PartitionLog } from "@lastword/logstore";
import "@lastword/record-batch/node-codecs";
import { CODEC_IDS, compressBatch, compressionCodec } from "@lastword/record-batch";
import { afterAll, describe, expect, it, vi } from "vitest";
import { withPlainCopy } from "./appended-records";
import { KeyIndexedLog } from "./indexed-log";

const root = mkdtempSync(join(tmpdir(), "indexed-log-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function zstdBatch(keys: readonly string[], value: string | null = "v"): Buffer {
  const records = keys.map((key) => ({
    key: Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
  }));
  return compressBatch(encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 0 }), CODEC_IDS.zstd);
}

describe("a compressed batch appended as sent", () => {
  it("is inflated once for the log's validation and the key index, and indexed", async () => {
    const log = await PartitionLog.open({ dir: join(root, "once"), config: { "cleanup.policy": "compact" } });
    const indexed = new KeyIndexedLog(log);
    // The codec registry is the one seam every inflation goes through.
    const inflations = vi.spyOn(compressionCodec(CODEC_IDS.zstd), "decompress");
    try {
      await indexed.appendBatch(zstdBatch(["a", "b", "c"]));
      expect(inflations).toHaveBeenCalledTimes(1);
      await indexed.appendBatch(zstdBatch(["b"], null));
      expect(inflations).toHaveBeenCalledTimes(2);
    } finally {
      inflations.mockRestore();
    }
    expect(indexed.index.get(Buffer.from("a"))).toMatchObject({ offset: 0, tombstone: false });
    expect(indexed.index.get(Buffer.from("b"))).toMatchObject({ offset: 3, tombstone: true });
    expect(indexed.index.get(Buffer.from("c"))).toMatchObject({ offset: 2, tombstone: false });
    await log.close();
  });

  it("that does not inflate is refused by the log as corrupt, as before, and indexes nothing", async () => {
    const log = await PartitionLog.open({
      dir: join(root, "corrupt"),
      config: { "cleanup.policy": "compact" },
    });
    const indexed = new KeyIndexedLog(log);
    const batch = zstdBatch(["a"]);
    batch.fill(0xff, 61);
    expect(withPlainCopy({ batch }).inflated).toBeUndefined();
    await expect(indexed.appendBatch(batch)).rejects.toThrow(/records do not decompress|CRC/);
    expect(indexed.index.get(Buffer.from("a"))).toBeUndefined();
    expect(log.logEndOffset).toBe(0);
    await log.close();
  });
});
