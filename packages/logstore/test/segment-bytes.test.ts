import { createRequire } from "node:module";
import { encodeRecordBatch } from "@lastword/record-batch";
import { describe, expect, it } from "vitest";
import { openLog, segmentFiles, tempDir } from "./helpers";

const require = createRequire(import.meta.url);

interface KafkaJsRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
}

/** kafkajs's own RecordBatch v2 decoder, used as an independent reader of our segment bytes. */
async function decodeWithKafkaJs(bytes: Buffer): Promise<{ records: KafkaJsRecord[] }[]> {
  const Decoder = require("kafkajs/src/protocol/decoder");
  const decodeBatchV2 = require("kafkajs/src/protocol/recordBatch/v0/decoder");
  const decoder = new Decoder(bytes);
  const batches: { records: KafkaJsRecord[] }[] = [];
  while (decoder.canReadInt64()) batches.push(await decodeBatchV2(decoder));
  return batches;
}

function appendedBatch(i: number) {
  return [
    {
      key: Buffer.from(`key-${i}`),
      value: i % 5 === 0 ? null : Buffer.from(`value-${i}`),
      timestamp: 1_000 + i,
    },
    {
      key: null,
      value: Buffer.alloc(0),
      timestamp: 999 + i,
      headers: [{ key: "trace", value: Buffer.from([i]) }],
    },
  ];
}

describe("segment files are @lastword/record-batch's bytes", () => {
  it("what the log writes is, byte for byte, encodeRecordBatch of the appended records at their offsets", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "segment.bytes": 1024 } });
    const expected: Buffer[] = [];
    for (let i = 0; i < 40; i++) {
      const { baseOffset } = await log.append(appendedBatch(i));
      // Every record carries its timestamp, so the append time the log stamps changes no byte.
      expected.push(encodeRecordBatch(appendedBatch(i), { baseOffset, appendTimeMs: 0 }));
    }
    await log.close();
    const files = segmentFiles(dir);
    expect(files.length).toBeGreaterThan(2);
    expect(Buffer.concat(files).equals(Buffer.concat(expected))).toBe(true);
  });

  it("kafkajs's decoder reads our segment files and gets identical records", async () => {
    const dir = tempDir();
    const log = await openLog({ dir, config: { "segment.bytes": 1024 } });
    const appended = [];
    for (let i = 0; i < 40; i++) {
      appended.push(...appendedBatch(i));
      await log.append(appendedBatch(i));
    }
    await log.close();
    const ours: KafkaJsRecord[] = [];
    for (const file of segmentFiles(dir)) {
      for (const batch of await decodeWithKafkaJs(file)) {
        for (const r of batch.records)
          ours.push({ offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value });
      }
    }
    expect(ours).toEqual(
      appended.map((r, i) => ({
        offset: String(i),
        timestamp: String(r.timestamp),
        key: r.key,
        value: r.value,
      })),
    );
  });
});
