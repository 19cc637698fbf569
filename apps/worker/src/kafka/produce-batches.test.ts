import { ErrorCode } from "@lastword/kafka-protocol";
import { defaultTopicConfig, parseTopicConfig } from "@lastword/logstore";
import { CODEC_IDS, crc32c, encodeRecordBatch, OFF_ATTRIBUTES, OFF_CRC } from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { partitionPayload } from "./produce-batches";

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
    "keeps %s as sent where the topic stores it, decodes it for re-encoding where the topic names another codec",
    (name) => {
      const sent = batch(CODEC_IDS[name]);
      expect(partitionPayload(sent, config, 9)).toEqual({ kind: "as-sent", batch: sent });
      expect(partitionPayload(sent, parseTopicConfig({ "compression.type": name }), 9)).toMatchObject({
        kind: "as-sent",
      });
      const other = name === "zstd" ? "gzip" : "zstd";
      const out = partitionPayload(sent, parseTopicConfig({ "compression.type": other }), 9);
      expect(out).toMatchObject({ kind: "re-encoded", codec: CODEC_IDS[name], producer: undefined });
      expect("records" in out && out.records.map((r) => r.value?.toString())).toEqual(
        records.map((r) => r.value.toString()),
      );
    },
  );

  it("a plain batch is appended as sent, unless the topic's compression.type names a codec", () => {
    expect(partitionPayload(batch(0), config, 9)).toMatchObject({ kind: "as-sent" });
    const zstdTopic = parseTopicConfig({ "compression.type": "zstd" });
    expect(partitionPayload(batch(0), zstdTopic, 9)).toMatchObject({ kind: "re-encoded", codec: 0 });
  });

  it("refuses a records section to re-encode that does not decompress with CORRUPT_MESSAGE naming the codec", () => {
    const data = batch(CODEC_IDS.zstd);
    data.fill(0x55, 70, 90);
    // Re-seal the CRC so the refusal is the codec's, not the checksum's.
    data.writeUInt32BE(crc32c(data.subarray(OFF_ATTRIBUTES)), OFF_CRC);
    expect(partitionPayload(data, parseTopicConfig({ "compression.type": "gzip" }), 9)).toMatchObject({
      errorCode: ErrorCode.CORRUPT_MESSAGE,
      message: expect.stringContaining("zstd"),
    });
  });

  it("refuses a codec id Kafka does not define with UNSUPPORTED_COMPRESSION_TYPE", () => {
    const data = batch(0);
    data.writeInt16BE(data.readInt16BE(OFF_ATTRIBUTES) | 6, OFF_ATTRIBUTES);
    expect(partitionPayload(data, config, 9)).toEqual({
      errorCode: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      message: "invalid record batch: unknown compression codec 6",
    });
  });

  it("a magic 0 or 1 message set is refused: UNSUPPORTED_FOR_MESSAGE_FORMAT under v0–v2, INVALID_RECORD from v3", () => {
    // A v1 message set's first message: offset, size, CRC, then magic at byte 16, as in a v2 batch.
    const messageSet = Buffer.alloc(40);
    messageSet.writeInt32BE(28, 8);
    messageSet.writeInt8(1, 16);
    for (const version of [0, 1, 2]) {
      expect(partitionPayload(messageSet, config, version)).toEqual({
        errorCode: ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
        message:
          "message format with magic 1 is not supported: this broker stores RecordBatch v2 (magic 2) only",
      });
    }
    expect(partitionPayload(messageSet, config, 3)).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD });
    expect(partitionPayload(batch(0), config, 0)).toMatchObject({ kind: "as-sent" });
  });
});
