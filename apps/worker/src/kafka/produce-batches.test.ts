import { DEFAULT_QUOTA } from "@lastword/api/tenant-quota";
import { ErrorCode } from "@lastword/kafka-protocol";
import {
  CODEC_IDS,
  crc32c,
  encodeRecordBatch,
  OFF_ATTRIBUTES,
  OFF_CRC,
  recordSkeleton,
} from "@lastword/record-batch";
import { defaultTopicConfig, parseTopicConfig } from "@lastword/topic-config";
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { InflatePool } from "../inflation/inflate-pool";
import { partitionPayload as payloadWithin } from "./produce-batches";
import { ProduceInflation } from "./produce-inflation";

const records = Array.from({ length: 5 }, (_, i) => ({
  key: Buffer.from(`k${i}`),
  value: Buffer.from(`value ${i} `.repeat(10)),
  timestamp: 100 + i,
}));
const config = defaultTopicConfig();
// The real pool (one thread) and the default limits: each call is one request's inflation.
const inflation = new ProduceInflation(
  new InflatePool({ threads: 1, maxQueue: 16 }),
  new Registry(),
  async () => DEFAULT_QUOTA,
);
afterAll(() => inflation.close());

/** `count` records of 64 KiB of zeros, zstd: a few KiB sent, `count` × 64 KiB inflated. */
function zstdZeros(count: number): Buffer {
  const zeros = { value: Buffer.alloc(64 << 10), timestamp: 1 };
  const records = Array.from({ length: count }, (_, i) => ({ key: Buffer.from(`k${i}`), ...zeros }));
  return encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 1, compression: CODEC_IDS.zstd });
}

async function partitionPayload(...args: [Buffer, Parameters<typeof payloadWithin>[1], number]) {
  return payloadWithin(...args, await inflation.forRequest("tenant"));
}

function batch(compression: number): Buffer {
  return encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 1, compression });
}

describe("Produce batches in every codec", () => {
  it.each(["gzip", "snappy", "lz4", "zstd"] as const)(
    "keeps %s as sent where the topic stores it, decodes it for re-encoding where the topic names another codec",
    async (name) => {
      const sent = batch(CODEC_IDS[name]);
      // Stored as sent, only the batch's skeleton comes back from the pool: the loop reads no values.
      expect(await partitionPayload(sent, config, 9)).toEqual({
        kind: "as-sent",
        batch: sent,
        inflated: Buffer.from(recordSkeleton(batch(0))!),
      });
      expect(await partitionPayload(sent, parseTopicConfig({ "compression.type": name }), 9)).toMatchObject({
        kind: "as-sent",
      });
      const other = name === "zstd" ? "gzip" : "zstd";
      const out = await partitionPayload(sent, parseTopicConfig({ "compression.type": other }), 9);
      expect(out).toMatchObject({ kind: "re-encoded", codec: CODEC_IDS[name], producer: undefined });
      expect("records" in out && out.records.map((r) => r.value?.toString())).toEqual(
        records.map((r) => r.value.toString()),
      );
    },
  );

  it("charges the quota every byte a batch inflates to, though only its few-KiB skeleton comes back", async () => {
    const request = await inflation.forRequest("tenant");
    const sent = zstdZeros(16);
    const out = await payloadWithin(sent, config, 9, request);
    if (!("kind" in out) || out.kind !== "as-sent")
      throw new Error(`expected as-sent, got ${JSON.stringify(out)}`);
    const plainLength = encodeRecordBatch(
      Array.from({ length: 16 }, (_, i) => ({
        key: Buffer.from(`k${i}`),
        value: Buffer.alloc(64 << 10),
        timestamp: 1,
      })),
      { baseOffset: 0, appendTimeMs: 1 },
    ).length;
    expect(request.chargedBytes).toBe(plainLength);
    expect(out.inflated!.length).toBeLessThan(1024);
  });

  it("a plain batch is appended as sent, unless the topic's compression.type names a codec", async () => {
    expect(await partitionPayload(batch(0), config, 9)).toMatchObject({ kind: "as-sent" });
    const zstdTopic = parseTopicConfig({ "compression.type": "zstd" });
    expect(await partitionPayload(batch(0), zstdTopic, 9)).toMatchObject({ kind: "re-encoded", codec: 0 });
  });

  it("refuses a records section that does not decompress with CORRUPT_MESSAGE naming the codec", async () => {
    const data = batch(CODEC_IDS.zstd);
    data.fill(0x55, 70, 90);
    // Re-seal the CRC so the refusal is the codec's, not the checksum's.
    data.writeUInt32BE(crc32c(data.subarray(OFF_ATTRIBUTES)), OFF_CRC);
    expect(await partitionPayload(data, parseTopicConfig({ "compression.type": "gzip" }), 9)).toMatchObject({
      errorCode: ErrorCode.CORRUPT_MESSAGE,
      message: expect.stringContaining("zstd"),
    });
  });

  it("refuses a codec id Kafka does not define with UNSUPPORTED_COMPRESSION_TYPE", async () => {
    const data = batch(0);
    data.writeInt16BE(data.readInt16BE(OFF_ATTRIBUTES) | 6, OFF_ATTRIBUTES);
    expect(await partitionPayload(data, config, 9)).toEqual({
      errorCode: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      message: "invalid record batch: unknown compression codec 6",
    });
  });

  it("a magic 0 or 1 message set is refused: UNSUPPORTED_FOR_MESSAGE_FORMAT under v0–v2, INVALID_RECORD from v3", async () => {
    // A v1 message set's first message: offset, size, CRC, then magic at byte 16, as in a v2 batch.
    const messageSet = Buffer.alloc(40);
    messageSet.writeInt32BE(28, 8);
    messageSet.writeInt8(1, 16);
    for (const version of [0, 1, 2]) {
      expect(await partitionPayload(messageSet, config, version)).toEqual({
        errorCode: ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
        message:
          "message format with magic 1 is not supported: this broker stores RecordBatch v2 (magic 2) only",
      });
    }
    expect(await partitionPayload(messageSet, config, 3)).toMatchObject({
      errorCode: ErrorCode.INVALID_RECORD,
    });
    expect(await partitionPayload(batch(0), config, 0)).toMatchObject({ kind: "as-sent" });
  });

  it("refuses a batch past the tenant's limits by name, having inflated no more than the bound", async () => {
    const bomb = zstdZeros(300);
    const limits = { ...DEFAULT_QUOTA, maxBatchInflatedBytes: 1 << 20, maxRequestInflatedBytes: 4 << 20 };
    const tight = new ProduceInflation(
      new InflatePool({ threads: 1, maxQueue: 4 }),
      new Registry(),
      async () => limits,
    );
    try {
      const request = await tight.forRequest("bomber");
      expect(await payloadWithin(bomb, config, 9, request)).toEqual({
        errorCode: ErrorCode.MESSAGE_TOO_LARGE,
        message: expect.stringContaining("maxBatchInflatedBytes quota (1048576 bytes)"),
      });
      const inflated = (await tight.inflatedBytes.get()).values[0]?.value ?? 0;
      expect(inflated).toBeGreaterThan(1 << 20);
      expect(inflated).toBeLessThanOrEqual((1 << 20) + (64 << 10));
      // Four batches of 900 KiB each: the fifth exceeds what is left of the request's 4 MiB.
      const fit = zstdZeros(14);
      for (let i = 0; i < 4; i++)
        expect(await payloadWithin(fit, config, 9, request)).toMatchObject({ kind: "as-sent" });
      expect(await payloadWithin(fit, config, 9, request)).toMatchObject({
        errorCode: ErrorCode.RECORD_LIST_TOO_LARGE,
        message: expect.stringContaining("maxRequestInflatedBytes"),
      });
      const many = encodeRecordBatch(
        Array.from({ length: 10 }, () => ({ key: Buffer.from("k"), value: null, timestamp: 1 })),
        { baseOffset: 0, appendTimeMs: 1 },
      );
      const few = new ProduceInflation(
        new InflatePool({ threads: 1, maxQueue: 4 }),
        new Registry(),
        async () => ({ ...limits, maxBatchRecords: 9 }),
      );
      expect(await payloadWithin(many, config, 9, await few.forRequest("t"))).toMatchObject({
        errorCode: ErrorCode.MESSAGE_TOO_LARGE,
        message: expect.stringContaining("maxBatchRecords quota (9)"),
      });
      await few.close();
    } finally {
      await tight.close();
    }
  });
});
