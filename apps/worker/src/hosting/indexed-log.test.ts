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

describe("transactions", () => {
  const key = (k: string) => Buffer.from(k);
  const rec = (k: string, v: string | null) => ({ key: key(k), value: v === null ? null : Buffer.from(v) });
  const txn = (pid: number, seq: number) => ({
    producer: { producerId: pid, producerEpoch: 0, baseSequence: seq },
    transactional: true,
  });
  const marker = (pid: number, commit: boolean) => ({
    producerId: pid,
    producerEpoch: 0,
    coordinatorEpoch: 0,
    commit,
    timestampMs: Date.now(),
  });

  it("index a transaction's keys at its COMMIT, never an aborted one's, and a rebuild agrees", async () => {
    const log = await PartitionLog.open({ dir: join(root, "txn"), config: { "cleanup.policy": "compact" } });
    const indexed = new KeyIndexedLog(log);
    await indexed.append([rec("a", "plain")]); // 0
    await indexed.append([rec("a", "in-txn"), rec("b", "in-txn")], txn(1, 0)); // 1, 2
    await indexed.append([rec("c", "aborted"), rec("a", "aborted")], txn(2, 0)); // 3, 4
    await indexed.append([rec("d", null)], txn(3, 0)); // 5: stays open
    // Open: nothing of either transaction is indexed.
    expect(indexed.index.get(key("a"))).toMatchObject({ offset: 0 });
    expect(indexed.index.get(key("b"))).toBeUndefined();
    await indexed.appendTxnMarker(marker(1, true)); // 6
    await indexed.appendTxnMarker(marker(2, false)); // 7
    const expected = {
      a: indexed.index.get(key("a")),
      b: indexed.index.get(key("b")),
      c: indexed.index.get(key("c")),
      d: indexed.index.get(key("d")),
    };
    expect(expected).toEqual({
      a: { offset: 1, tombstone: false },
      b: { offset: 2, tombstone: false },
      c: undefined,
      d: undefined,
    });
    // A rebuild (after a pass, or at open) walks the log to the same index, the open one held.
    await indexed.rebuildIndex();
    for (const [k, entry] of Object.entries(expected)) expect(indexed.index.get(key(k))).toEqual(entry);
    await indexed.appendTxnMarker(marker(3, true)); // 8
    expect(indexed.index.get(key("d"))).toEqual({ offset: 5, tombstone: true });
    await log.close();
  });
});
