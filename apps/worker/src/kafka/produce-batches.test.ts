import { ErrorCode } from "@lastword/kafka-protocol";
import { defaultTopicConfig } from "@lastword/logstore";
import { CODEC_IDS, crc32c, encodeRecordBatch, OFF_ATTRIBUTES, OFF_CRC } from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { clientCodec, produceRecords } from "./produce-batches";

const records = Array.from({ length: 5 }, (_, i) => ({
  key: Buffer.from(`k${i}`),
  value: Buffer.from(`value ${i} `.repeat(10)),
  timestamp: 100 + i,
}));
const config = defaultTopicConfig();

function batch(compression: number): Buffer {
  return encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 1, compression });
}

describe("Produce batches in every codec", () => {
  it.each(["gzip", "snappy", "lz4", "zstd"] as const)(
    "accepts %s and names it as the client's codec",
    (name) => {
      const data = batch(CODEC_IDS[name]);
      const out = produceRecords(data, config, "t-0");
      expect(Array.isArray(out) && out.map((r) => r.value?.toString())).toEqual(
        records.map((r) => r.value.toString()),
      );
      expect(clientCodec(data)).toBe(CODEC_IDS[name]);
      expect(clientCodec(Buffer.concat([batch(0), data]))).toBe(CODEC_IDS[name]);
      expect(clientCodec(batch(0))).toBe(0);
    },
  );

  it("refuses a records section that does not decompress with CORRUPT_MESSAGE naming the codec", () => {
    const data = batch(CODEC_IDS.zstd);
    data.fill(0x55, 70, 90);
    // Re-seal the CRC so the refusal is the codec's, not the checksum's.
    data.writeUInt32BE(crc32c(data.subarray(OFF_ATTRIBUTES)), OFF_CRC);
    expect(produceRecords(data, config, "t-0")).toMatchObject({
      errorCode: ErrorCode.CORRUPT_MESSAGE,
      message: expect.stringContaining("zstd"),
    });
  });

  it("refuses a codec id Kafka does not define with UNSUPPORTED_COMPRESSION_TYPE", () => {
    const data = batch(0);
    data.writeInt16BE(data.readInt16BE(OFF_ATTRIBUTES) | 6, OFF_ATTRIBUTES);
    expect(produceRecords(data, config, "t-0")).toEqual({
      errorCode: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      message: "invalid record batch: unknown compression codec 6",
    });
  });
});
