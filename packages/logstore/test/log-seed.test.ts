import { describe, expect, it } from "vitest";
import { seedLog } from "../src/index";
import { kv, openLog, replayLog, tempDir, text } from "./helpers";

/** The stored batches of `log` from `from` to its end, as an object store would hold them. */
async function storedBatches(log: Awaited<ReturnType<typeof openLog>>, from: number): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  for (let next = from; next < log.logEndOffset; ) {
    const read = await log.readBatches(next, { maxBytes: 1 << 20 });
    chunks.push(read.bytes);
    next = read.nextOffset;
  }
  return chunks;
}

describe("seedLog", () => {
  it("lays stored batches down as a log that opens at the same offsets, records and producer state", async () => {
    const source = await openLog({ config: { "compression.type": "gzip" } });
    for (let n = 0; n < 5; n++) await source.append([kv(`k${n}`, `v${n}`), kv("same", `s${n}`)]);
    const producer = { producerId: 9, producerEpoch: 0, baseSequence: 0 };
    await source.append([kv("p", "first")], { producer });
    // From offset 4: what a manifest started there holds.
    const batches = await storedBatches(source, 4);
    const dir = tempDir();
    await seedLog(dir, { logStartOffset: 4, parts: [{ kind: "local", baseOffset: 4, batches }] });
    const seeded = await openLog({ dir, config: { "compression.type": "gzip" } });
    expect([seeded.logStartOffset, seeded.logEndOffset]).toEqual([4, 11]);
    const records = await replayLog(seeded);
    expect(records.map((r) => [r.offset, text(r.key), text(r.value)])).toEqual(
      (await replayLog(source))
        .filter((r) => r.offset >= 4)
        .map((r) => [r.offset, text(r.key), text(r.value)]),
    );
    // The producer's batch was replayed into its state: a resend is a duplicate with its offsets.
    const resend = await seeded.append([kv("p", "first")], { producer });
    expect(resend).toEqual({ baseOffset: 10, lastOffset: 10, duplicate: true });
    // Appends go on after the seeded batches.
    expect((await seeded.append([kv("next", "x")])).baseOffset).toBe(11);
  });

  it("refuses a directory that already holds segments", async () => {
    const log = await openLog();
    await log.append([kv("k", "v")]);
    await log.close();
    await expect(
      seedLog(log.dir, { logStartOffset: 0, parts: [{ kind: "local", baseOffset: 0, batches: [] }] }),
    ).rejects.toThrow(/already holds segments/);
  });
});
