import { gzipSync } from "node:zlib";
import {
  batchCrcMatches,
  CODEC_IDS,
  type CompressionName,
  compressBatch,
  crc32c,
  encodeRecordBatch,
  OFF_ATTRIBUTES,
  OFF_CRC,
  OFF_LAST_OFFSET_DELTA,
  readBatchHeader,
} from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { InvalidBatchRecordsError } from "../src/index";
import { kv, openLog, TestClock, text } from "./helpers";

// The test clock's start: batches are as old as the log thinks it is now (no time-based roll).
const CREATED_AT = new TestClock().now();

/** A batch as a Kafka client builds it: base offset 0, its own timestamps and producer fields. */
function clientBatch(
  records: ReturnType<typeof kv>[],
  producer?: { producerId: number; producerEpoch: number; baseSequence: number },
): Buffer {
  const batch = encodeRecordBatch(
    records.map((r, i) => ({ ...r, timestamp: CREATED_AT + i })),
    {
      baseOffset: 0,
      appendTimeMs: CREATED_AT,
      ...(producer && { producer: { ...producer, partitionLeaderEpoch: 0, attributes: 0 } }),
    },
  );
  return Buffer.from(batch);
}

async function storedBytes(log: Awaited<ReturnType<typeof openLog>>): Promise<Buffer> {
  const read = await log.readBatches(log.logStartOffset);
  return Buffer.from(read.bytes);
}

/**
 * Appends `sent` after one record already in the log and checks it is stored as it was sent, but
 * for its base offset (1): the stored batch, its header and records as they came.
 */
async function appendAsSent(log: Awaited<ReturnType<typeof openLog>>, sent: Buffer): Promise<Buffer> {
  await log.append([kv("first", "1")]);
  const copy = Buffer.from(sent);
  expect(await log.appendBatch(sent)).toEqual({ baseOffset: 1, lastOffset: 3 });
  const stored = await storedBytes(log);
  const second = stored.subarray(stored.length - copy.length);
  expect(second.readBigInt64BE(0)).toBe(1n);
  expect(second.subarray(8)).toEqual(copy.subarray(8));
  return second;
}

describe("appendBatch (a client's batch appended as sent)", () => {
  it("stores the batch byte for byte except its base offset, which the log assigns", async () => {
    const log = await openLog({ config: { "cleanup.policy": "compact" } });
    const second = await appendAsSent(log, clientBatch([kv("a", "1"), kv("b", null), kv("c", "")]));
    expect(batchCrcMatches(second, 0, second.length)).toBe(true);
    const read = await log.read(1);
    expect(read.map((r) => [r.offset, text(r.key), text(r.value), r.timestamp])).toEqual([
      [1, "a", "1", CREATED_AT],
      [2, "b", null, CREATED_AT + 1],
      [3, "c", "", CREATED_AT + 2],
    ]);
    expect(log.segments()[0]!.tombstones).toBe(1);
  });

  it("refuses a bad CRC, a wrong lastOffsetDelta, two batches, records that do not decompress; nothing is written", async () => {
    const log = await openLog();
    const badCrc = clientBatch([kv("a", "1")]);
    badCrc[badCrc.length - 1]! ^= 0xff;
    await expect(log.appendBatch(badCrc)).rejects.toThrow(/CRC-32C mismatch/);
    const badDelta = clientBatch([kv("a", "1"), kv("b", "2")]);
    badDelta.writeInt32BE(5, OFF_LAST_OFFSET_DELTA);
    await expect(log.appendBatch(badDelta)).rejects.toMatchObject({ code: "INVALID_RECORD" });
    const two = Buffer.concat([clientBatch([kv("a", "1")]), clientBatch([kv("b", "2")])]);
    await expect(log.appendBatch(two)).rejects.toThrow(/exactly one batch/);
    // Marked gzip with a right CRC, its records plain: the walk only runs on what decompresses.
    const compressed = clientBatch([kv("a", "1")]);
    compressed.writeInt16BE(CODEC_IDS.gzip, OFF_ATTRIBUTES);
    compressed.writeUInt32BE(crc32c(compressed.subarray(OFF_ATTRIBUTES)), OFF_CRC);
    await expect(log.appendBatch(compressed)).rejects.toThrow(/the records do not decompress/);
    await expect(log.appendBatch(gzipSync("not a batch"))).rejects.toMatchObject({ code: "INVALID_RECORD" });
    expect(log.logEndOffset).toBe(0);
    expect(log.segments()[0]!.sizeBytes).toBe(0);
  });

  it("refuses a record whose lengths overrun it, and a batch above max.message.bytes", async () => {
    const log = await openLog({ config: { "max.message.bytes": 200 } });
    const cut = clientBatch([kv("a", "1")]);
    // The record's length varint claims more than the batch holds; the CRC is made right again,
    // so only the walk can catch it.
    cut.writeInt8(0x7e, 61);
    cut.writeUInt32BE(crc32c(cut.subarray(OFF_ATTRIBUTES)), OFF_CRC);
    await expect(log.appendBatch(cut)).rejects.toThrow(/record 0 is malformed/);
    await expect(log.appendBatch(clientBatch([kv("big", "x".repeat(300))]))).rejects.toMatchObject({
      code: "RECORD_TOO_LARGE",
    });
    expect(log.logEndOffset).toBe(0);
  });

  it("names every keyless record on a compacted topic (the same rule the records path meets)", async () => {
    const log = await openLog({ config: { "cleanup.policy": "compact" } });
    const refused = log.appendBatch(clientBatch([kv("a", "1"), kv(null, "2"), kv(null, "3")]));
    await expect(refused).rejects.toBeInstanceOf(InvalidBatchRecordsError);
    await expect(refused).rejects.toMatchObject({ recordIndexes: [1, 2], code: "INVALID_RECORD" });
    await expect(log.append([kv("a", "1"), kv(null, "2")])).rejects.toMatchObject({ recordIndexes: [1] });
    expect(log.logEndOffset).toBe(0);
  });

  it("checks the header's producer fields: a resend gets the original offsets, a gap is refused", async () => {
    const log = await openLog({ clock: new TestClock() });
    const producer = { producerId: 7, producerEpoch: 0, baseSequence: 0 };
    const first = clientBatch([kv("a", "1"), kv("b", "2")], producer);
    const resend = Buffer.from(first);
    expect(await log.appendBatch(first)).toEqual({ baseOffset: 0, lastOffset: 1 });
    expect(await log.appendBatch(resend)).toEqual({ baseOffset: 0, lastOffset: 1, duplicate: true });
    const gap = clientBatch([kv("c", "3")], { ...producer, baseSequence: 5 });
    await expect(log.appendBatch(gap)).rejects.toMatchObject({ code: "OUT_OF_ORDER_SEQUENCE" });
    const next = clientBatch([kv("c", "3")], { ...producer, baseSequence: 2 });
    expect(await log.appendBatch(next)).toEqual({ baseOffset: 2, lastOffset: 2 });
    // The records path shares the producer state: the same producer continues through it.
    expect(await log.append([kv("d", "4")], { producer: { ...producer, baseSequence: 3 } })).toEqual({
      baseOffset: 3,
      lastOffset: 3,
    });
    const ahead = clientBatch([kv("e", "5")], { ...producer, baseSequence: 9 });
    await expect(log.appendBatch(ahead)).rejects.toMatchObject({ code: "OUT_OF_ORDER_SEQUENCE" });
    expect(log.logEndOffset).toBe(4);
    expect(log.producerState.entry(7)!.batches.map((b) => [b.firstSeq, b.lastSeq])).toEqual([
      [0, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it("on a LogAppendTime topic restamps the header with the append time and a valid CRC", async () => {
    const clock = new TestClock();
    const log = await openLog({ clock, config: { "message.timestamp.type": "LogAppendTime" } });
    await log.appendBatch(clientBatch([kv("a", "1"), kv("b", "2")]));
    const stored = await storedBytes(log);
    const header = readBatchHeader(stored, 0);
    expect(header.timestampType).toBe("LogAppendTime");
    expect(header.maxTimestamp).toBe(clock.now());
    expect(batchCrcMatches(stored, 0, stored.length)).toBe(true);
    expect((await log.read(0)).map((r) => r.timestamp)).toEqual([clock.now(), clock.now()]);
  });

  it("keeps a compressed batch as sent (each codec) when the topic stores the producer's codec: only the base offset changes", async () => {
    const codecs: Exclude<CompressionName, "none">[] = ["gzip", "snappy", "lz4", "zstd"];
    for (const codec of codecs) {
      for (const type of ["producer", codec]) {
        const log = await openLog({ config: { "cleanup.policy": "compact", "compression.type": type } });
        const records = [kv("a", "1"), kv("b", null), kv("a", "3")];
        await appendAsSent(log, compressBatch(clientBatch(records), CODEC_IDS[codec]));
        expect((await log.read(1)).map((r) => [r.offset, text(r.key), text(r.value)])).toEqual([
          [1, "a", "1"],
          [2, "b", null],
          [3, "a", "3"],
        ]);
        expect(log.segments()[0]!.tombstones).toBe(1);
        await log.close();
      }
    }
  });

  it("refuses a batch in another codec than the topic stores (its records go the re-encoding way), and validates inside a compressed one", async () => {
    const log = await openLog({ config: { "cleanup.policy": "compact", "compression.type": "zstd" } });
    const lz4 = compressBatch(clientBatch([kv("a", "1")]), CODEC_IDS.lz4);
    await expect(log.appendBatch(lz4)).rejects.toThrow(
      /lz4 batch cannot be stored as sent under compression.type=zstd/,
    );
    await expect(log.appendBatch(clientBatch([kv("a", "1")]))).rejects.toThrow(/none batch cannot be stored/);
    const keyless = compressBatch(clientBatch([kv("a", "1"), kv(null, "2")]), CODEC_IDS.zstd);
    await expect(log.appendBatch(keyless)).rejects.toMatchObject({ recordIndexes: [1] });
    expect(log.logEndOffset).toBe(0);
  });

  it("stamps a compressed batch's header on a LogAppendTime topic, its compressed records untouched", async () => {
    const clock = new TestClock();
    const log = await openLog({ clock, config: { "message.timestamp.type": "LogAppendTime" } });
    const sent = compressBatch(clientBatch([kv("a", "1"), kv("b", "2")]), CODEC_IDS.gzip);
    const records = Buffer.from(sent.subarray(61));
    await log.appendBatch(sent);
    const stored = await storedBytes(log);
    expect(readBatchHeader(stored, 0)).toMatchObject({
      timestampType: "LogAppendTime",
      maxTimestamp: clock.now(),
    });
    expect(stored.subarray(61)).toEqual(records);
    expect(batchCrcMatches(stored, 0, stored.length)).toBe(true);
    expect((await log.read(0)).map((r) => r.timestamp)).toEqual([clock.now(), clock.now()]);
  });
});
