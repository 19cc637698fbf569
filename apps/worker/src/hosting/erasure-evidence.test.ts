import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PartitionLog } from "@lastword/logstore";
import { CODEC_IDS } from "@lastword/record-batch";
import { afterEach, describe, expect, it } from "vitest";
import { scanForKey } from "./erasure-evidence";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A compacting log in a temp dir of its own (removed after the test), with `config` on top. */
async function openLog(prefix: string, config: Record<string, string | number>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  const log = await PartitionLog.open({
    dir,
    config: { "cleanup.policy": "compact", "delete.retention.ms": 0, ...config },
  });
  return { dir, log };
}

const SUBJECT = Buffer.from("user-42");
const OLD_VALUE = "user-42's email: ada@example.com";

describe.each(["zstd", "gzip", "snappy", "lz4"] as const)("erasure scan of %s batches", (codec) => {
  it("finds an old value of the subject inside a compressed batch, then proves it gone after cleaning", async () => {
    const { dir, log } = await openLog("erasure-evidence-", {
      "compression.type": codec,
      "file.delete.delay.ms": 0,
    });
    try {
      const filler = Array.from({ length: 20 }, (_, i) => ({
        key: Buffer.from(`other-${i}`),
        value: Buffer.from(`value ${i} `.repeat(10)),
      }));
      await log.append([
        ...filler.slice(0, 10),
        { key: SUBJECT, value: Buffer.from(OLD_VALUE) },
        ...filler.slice(10),
      ]);
      const erasure = await log.append([{ key: SUBJECT, value: null }]);
      await log.roll();
      // The value is not in the segment file as plain bytes: only a reader that decompresses sees it.
      const onDisk = fs.readFileSync(path.join(dir, "00000000000000000000.log"));
      expect(onDisk.includes(Buffer.from(OLD_VALUE))).toBe(false);
      expect(onDisk[22]! & 0x07).toBe(CODEC_IDS[codec]);

      const scan = async () =>
        (await scanForKey({ log, dir, key: SUBJECT, belowOffset: erasure.baseOffset, now: new Date(0) }))
          .evidence;
      const before = await scan();
      expect(before.result).toBe("present");
      expect(before.matches).toEqual([10]);

      await log.clean({ force: true });
      // The pass's retired files are unlinked after file.delete.delay.ms: until then they still hold it.
      await expect.poll(() => fs.readdirSync(dir).some((name) => name.endsWith(".deleted"))).toBe(false);
      const after = await scan();
      expect(after.result).toBe("absent");
      expect(after.matches).toEqual([]);
      // The rest of that batch survived, still compressed with the same codec.
      const [first] = await log.read(0, { maxRecords: 1 });
      expect(first?.key?.toString()).toBe("other-0");
    } finally {
      await log.close();
    }
  });
});

describe("erasure scan of retired files", () => {
  it("finds the old value in a segment a pass retired until the file is unlinked", async () => {
    const { dir, log } = await openLog("erasure-evidence-", { "file.delete.delay.ms": 60_000 });
    try {
      await log.append([{ key: SUBJECT, value: Buffer.from(OLD_VALUE) }]);
      const erasure = await log.append([{ key: SUBJECT, value: null }]);
      await log.roll();
      await log.clean({ force: true });
      expect(fs.readdirSync(dir).some((name) => name.endsWith(".log.deleted"))).toBe(true);
      const scan = await scanForKey({
        log,
        dir,
        key: SUBJECT,
        belowOffset: erasure.baseOffset,
        now: new Date(0),
      });
      // No live record is left, so no pass would help: the proof waits for the file to go.
      expect([scan.evidence.result, scan.evidence.matches]).toEqual(["present", []]);
      expect(scan.blockedBy).toMatch(/retired segment files still on disk hold offsets 0/);
    } finally {
      await log.close();
    }
  });
});

describe("erasure scan and transactions", () => {
  const marker = (producerId: number, commit: boolean) => ({
    producerId,
    producerEpoch: 0,
    coordinatorEpoch: 0,
    commit,
    timestampMs: Date.now(),
  });

  it("a value of the subject in an open transaction delays the proof (and says why); once aborted, a pass removes it", async () => {
    const { dir, log } = await openLog("erasure-txn-", { "file.delete.delay.ms": 0 });
    try {
      await log.append([{ key: Buffer.from("other"), value: Buffer.from("x") }]); // 0
      const txn = { producer: { producerId: 8, producerEpoch: 0, baseSequence: 0 }, transactional: true };
      await log.append([{ key: SUBJECT, value: Buffer.from(OLD_VALUE) }], txn); // 1: open
      const erasure = await log.append([{ key: SUBJECT, value: null }]); // 2
      await log.roll();
      const scan = () =>
        scanForKey({ log, dir, key: SUBJECT, belowOffset: erasure.baseOffset, now: new Date(0) });
      const open = await scan();
      expect(open.evidence).toMatchObject({ result: "present", matches: [1] });
      expect(open.blockedBy).toMatch(
        /an open transaction holds the partition's records from offset 1 on.*offsets 1/,
      );
      // A pass cannot reach it while the transaction is open.
      await log.clean({ force: true });
      expect((await scan()).evidence.matches).toEqual([1]);
      await log.appendTxnMarker(marker(8, false));
      await log.roll();
      const aborted = await scan();
      // Aborted: no longer waiting on the transaction; a pass is what it needs now.
      expect(aborted).toMatchObject({ blockedBy: null, evidence: { result: "present", matches: [1] } });
      await log.clean({ force: true });
      await expect.poll(() => fs.readdirSync(dir).some((name) => name.endsWith(".deleted"))).toBe(false);
      expect((await scan()).evidence).toMatchObject({ result: "absent", matches: [] });
    } finally {
      await log.close();
    }
  });
});
