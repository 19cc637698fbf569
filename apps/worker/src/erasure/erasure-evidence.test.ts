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

const SUBJECT = Buffer.from("user-42");
const OLD_VALUE = "user-42's email: ada@example.com";

describe.each(["zstd", "gzip", "snappy", "lz4"] as const)("erasure scan of %s batches", (codec) => {
  it("finds an old value of the subject inside a compressed batch, then proves it gone after cleaning", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "erasure-evidence-"));
    dirs.push(dir);
    const config = { "cleanup.policy": "compact", "compression.type": codec, "delete.retention.ms": 0 };
    const log = await PartitionLog.open({ dir, config });
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

      const before = await scanForKey(log, dir, SUBJECT, erasure.baseOffset, new Date(0));
      expect(before.result).toBe("present");
      expect(before.matches).toEqual([10]);

      await log.clean({ force: true });
      const after = await scanForKey(log, dir, SUBJECT, erasure.baseOffset, new Date(0));
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
