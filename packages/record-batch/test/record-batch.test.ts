import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  encodeControlBatch,
  isControlBatch,
  isTransactionalBatch,
  readTxnMarker,
} from "../src/control-batch";
import {
  batchCrcMatches,
  decodeBatch,
  decodeBatchRecords,
  encodeRecordBatch,
  type LogRecord,
  readBatchHeader,
  rebuildBatch,
  setBaseOffset,
} from "../src/record-batch";
import { RecordBatchFormatError } from "../src/record-walk";

const require = createRequire(import.meta.url);

function kv(key: string | null, value: string | null, timestamp?: number) {
  return {
    key: key === null ? null : Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
    ...(timestamp === undefined ? {} : { timestamp }),
  };
}

function text(buffer: Buffer | null): string | null {
  return buffer === null ? null : buffer.toString();
}

interface KafkaJsRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | null>;
}
interface KafkaJsBatch {
  firstOffset: string;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  timestampType: number;
  records: KafkaJsRecord[];
}

/** kafkajs's own RecordBatch v2 decoder, used as an independent reader of our segment bytes. */
async function decodeWithKafkaJs(bytes: Buffer): Promise<KafkaJsBatch[]> {
  const Decoder = require("kafkajs/src/protocol/decoder");
  const decodeBatchV2 = require("kafkajs/src/protocol/recordBatch/v0/decoder");
  const decoder = new Decoder(bytes);
  const batches: KafkaJsBatch[] = [];
  while (decoder.canReadInt64()) batches.push(await decodeBatchV2(decoder));
  return batches;
}

function decodeAll(batch: Buffer): LogRecord[] {
  const out: LogRecord[] = [];
  decodeBatchRecords(batch, 0, out, 0, Number.POSITIVE_INFINITY);
  return out;
}

describe("record batch v2", () => {
  it("1. round-trips keys, values, null tombstones, empty values, headers and timestamps", () => {
    const batch = encodeRecordBatch(
      [
        { key: Buffer.from("a"), value: Buffer.from("1"), timestamp: 5_000 },
        { key: Buffer.from("b"), value: null, timestamp: 4_000 },
        { key: Buffer.from("c"), value: Buffer.alloc(0), headers: [{ key: "h", value: null }] },
        { key: null, value: Buffer.from("x".repeat(300)), headers: [{ key: "ü", value: Buffer.from("v") }] },
      ],
      { baseOffset: 0, appendTimeMs: 9_000 },
    );
    setBaseOffset(batch, 2 ** 40);
    const header = readBatchHeader(batch, 0);
    expect(header).toMatchObject({ baseOffset: 2 ** 40, magic: 2, recordCount: 4, lastOffsetDelta: 3 });
    expect(header).toMatchObject({
      baseTimestamp: 5_000,
      maxTimestamp: 9_000,
      producerId: -1,
      deleteHorizonMs: null,
    });
    expect(header.sizeBytes).toBe(batch.length);
    expect(batchCrcMatches(batch, 0, batch.length)).toBe(true);
    const records = decodeAll(batch);
    expect(records.map((r) => r.offset)).toEqual([0, 1, 2, 3].map((d) => 2 ** 40 + d));
    expect(records.map((r) => r.timestamp)).toEqual([5_000, 4_000, 9_000, 9_000]);
    expect(records.map((r) => text(r.value))).toEqual(["1", null, "", "x".repeat(300)]);
    expect(records[1]!.value).toBeNull();
    expect(records[2]!.value).toEqual(Buffer.alloc(0));
    expect(records[3]!.key).toBeNull();
    expect(records[3]!.headers).toEqual([{ key: "ü", value: Buffer.from("v") }]);
    expect(records[2]!.headers).toEqual([{ key: "h", value: null }]);
  });

  it("2. the CRC-32C covers attributes to the end: one flipped byte is detected", () => {
    const batch = encodeRecordBatch([kv("k", "v", 1)], { baseOffset: 0, appendTimeMs: 1 });
    batch[batch.length - 3]! ^= 0x01;
    expect(batchCrcMatches(batch, 0, batch.length)).toBe(false);
  });

  it("3. the delete-horizon flag stores the horizon in baseTimestamp and keeps record timestamps", () => {
    const source = encodeRecordBatch([kv("a", "1", 1_000), kv("b", null, 2_000), kv("c", "3", 3_000)], {
      baseOffset: 100,
      appendTimeMs: 0,
    });
    const { header, records } = decodeBatch(source);
    const rebuilt = rebuildBatch(header, [records[1]!], 90_000);
    const again = decodeBatch(rebuilt);
    expect(again.header.deleteHorizonMs).toBe(90_000);
    expect(again.header.baseOffset).toBe(100);
    expect(again.header.lastOffsetDelta).toBe(2);
    expect(again.header.lastOffset).toBe(102);
    expect(again.header.maxTimestamp).toBe(2_000);
    expect(again.records.map((r) => [r.offset, r.timestamp, text(r.key), r.value])).toEqual([
      [101, 2_000, "b", null],
    ]);
    expect(batchCrcMatches(rebuilt, 0, rebuilt.length)).toBe(true);
    const cleared = decodeBatch(rebuildBatch(again.header, again.records, null));
    expect(cleared.header.deleteHorizonMs).toBeNull();
    expect(cleared.records[0]!.timestamp).toBe(2_000);
  });

  it("4. an emptied rebuild keeps base offset, lastOffsetDelta and the source max timestamp", () => {
    const source = encodeRecordBatch([kv("a", "1", 10), kv("b", "2", 20)], {
      baseOffset: 7,
      appendTimeMs: 0,
    });
    const empty = decodeBatch(rebuildBatch(readBatchHeader(source, 0), []));
    expect(empty.header).toMatchObject({ baseOffset: 7, lastOffset: 8, recordCount: 0, maxTimestamp: 20 });
  });

  it("5. LogAppendTime stamps every record with the append time and sets the timestamp-type bit", () => {
    const batch = encodeRecordBatch([kv("a", "1", 5)], {
      baseOffset: 0,
      appendTimeMs: 77,
      timestampType: "LogAppendTime",
    });
    expect(readBatchHeader(batch, 0).timestampType).toBe("LogAppendTime");
    expect(decodeAll(batch)[0]!.timestamp).toBe(77);
  });

  it("6. kafkajs's decoder reads our batches and gets identical records, headers and batch fields", async () => {
    const records = [
      { key: Buffer.from("a"), value: Buffer.from("1"), timestamp: 1_000 },
      { key: Buffer.from("b"), value: null, timestamp: 2 ** 41 },
      {
        key: null,
        value: Buffer.alloc(0),
        timestamp: 999,
        headers: [{ key: "trace", value: Buffer.from([7]) }],
      },
      { key: Buffer.from("ü"), value: Buffer.alloc(300, 1), headers: [{ key: "n", value: null }] },
    ];
    const batches = [
      encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 5_000 }),
      encodeRecordBatch(records.slice(0, 2), {
        baseOffset: 4,
        appendTimeMs: 6_000,
        timestampType: "LogAppendTime",
      }),
      encodeRecordBatch(records.slice(1), {
        baseOffset: 2 ** 40,
        appendTimeMs: 0,
        producer: {
          producerId: 2 ** 33 + 5,
          producerEpoch: 3,
          baseSequence: 17,
          partitionLeaderEpoch: 9,
          attributes: 0,
        },
      }),
    ];
    const decoded = await decodeWithKafkaJs(Buffer.concat(batches));
    expect(
      decoded.map((b) => [b.firstOffset, b.lastOffsetDelta, b.producerId, b.producerEpoch, b.firstSequence]),
    ).toEqual([
      ["0", 3, "-1", -1, -1],
      ["4", 1, "-1", -1, -1],
      [String(2 ** 40), 2, String(2 ** 33 + 5), 3, 17],
    ]);
    expect(decoded[1]!.timestampType).toBe(1);
    const ours = batches.map((b) => decodeAll(b));
    expect(
      decoded.map((b) => b.records.map((r) => [r.offset, r.timestamp, r.key, r.value, r.headers])),
    ).toEqual(
      ours.map((rs) =>
        rs.map((r) => [
          String(r.offset),
          String(r.timestamp),
          r.key,
          r.value,
          Object.fromEntries(r.headers.map((h) => [h.key, h.value])),
        ]),
      ),
    );
  });

  it("7. varint edges: timestamp deltas beyond 32 bits and negative, long keys, many headers", () => {
    const timestamps = [2 ** 41, 0, 2 ** 31 + 7, 2 ** 41 - 1];
    const longKey = Buffer.alloc(70_000, 1);
    const headers = Array.from({ length: 200 }, (_, i) => ({
      key: `h${i}`,
      value: i % 2 ? null : Buffer.from([i]),
    }));
    const records = timestamps.map((timestamp, i) => ({
      key: i === 1 ? longKey : null,
      value: null,
      timestamp,
      headers,
    }));
    const decoded = decodeAll(encodeRecordBatch(records, { baseOffset: 3, appendTimeMs: 0 }));
    expect(decoded.map((r) => r.timestamp)).toEqual(timestamps);
    expect(decoded[1]!.key).toEqual(longKey);
    expect(decoded[3]!.headers).toEqual(headers);
  });

  it("8. decoding a batch that sits at an offset inside a larger buffer: exact fields, views not copies, bounds", () => {
    const records = [
      { key: Buffer.from("k0"), value: Buffer.alloc(20_000, 7), timestamp: 1_000 },
      { key: null, value: Buffer.from("v1"), timestamp: 900 },
      {
        key: Buffer.from("k2"),
        value: null,
        timestamp: 1_100,
        headers: [{ key: "h", value: Buffer.from("x") }],
      },
      { key: Buffer.alloc(0), value: Buffer.alloc(0), timestamp: 1_000 },
    ];
    const batch = encodeRecordBatch(records, { baseOffset: 50, appendTimeMs: 0 });
    // A window as reads hand it over: a view at a non-zero byteOffset of a larger ArrayBuffer, the
    // batch at a non-zero position inside it.
    const backing = Buffer.alloc(batch.length + 200, 0xee);
    const window = backing.subarray(37, 37 + batch.length + 100);
    batch.copy(window, 63);
    const out: LogRecord[] = [];
    expect(decodeBatchRecords(window, 63, out, 0, Number.POSITIVE_INFINITY)).toBe(4);
    expect(out).toEqual(records.map((r, i) => ({ ...r, offset: 50 + i, headers: r.headers ?? [] })));
    const withDeltas = decodeBatch(window, 63).records;
    expect(withDeltas.map(({ offsetDelta, ...rest }) => [offsetDelta, rest])).toEqual(
      out.map((record, i) => [i, record]),
    );
    // Views into the window: a byte written there shows through the decoded key.
    window[63 + batch.indexOf("k2")] = "K".charCodeAt(0);
    expect(text(out[2]!.key)).toBe("K2");
    expect(text(withDeltas[2]!.key)).toBe("K2");
    // minOffset skips, maxRecords stops.
    const bounded: LogRecord[] = [];
    expect(decodeBatchRecords(window, 63, bounded, 51, 2)).toBe(2);
    expect(bounded.map((r) => r.offset)).toEqual([51, 52]);
  });
});

describe("transaction markers", () => {
  it("a COMMIT and an ABORT marker read back, and kafkajs's decoder sees control batches of the transaction", async () => {
    const commit = encodeControlBatch({
      baseOffset: 7,
      producerId: 2 ** 40 + 3,
      producerEpoch: 4,
      commit: true,
      coordinatorEpoch: 12,
      timestampMs: 1_700_000_000_000,
    });
    const abort = encodeControlBatch({
      baseOffset: 8,
      producerId: 5,
      producerEpoch: 0,
      commit: false,
      coordinatorEpoch: 0,
      timestampMs: 1,
    });
    for (const batch of [commit, abort]) {
      expect(batchCrcMatches(batch, 0, batch.length)).toBe(true);
      expect(isControlBatch(batch, 0) && isTransactionalBatch(batch, 0)).toBe(true);
      expect(readBatchHeader(batch, 0)).toMatchObject({
        recordCount: 1,
        baseSequence: -1,
        lastOffsetDelta: 0,
      });
    }
    expect(readTxnMarker(commit, 0)).toEqual({ commit: true, coordinatorEpoch: 12 });
    expect(readTxnMarker(abort, 0)).toEqual({ commit: false, coordinatorEpoch: 0 });
    const plain = encodeRecordBatch([{ key: Buffer.from("k"), value: null }], {
      baseOffset: 0,
      appendTimeMs: 0,
    });
    expect(() => readTxnMarker(plain, 0)).toThrow(RecordBatchFormatError);
    const decoded = (await decodeWithKafkaJs(Buffer.concat([commit, abort]))) as unknown as {
      inTransaction: boolean;
      isControlBatch: boolean;
      producerId: string;
      records: { key: Buffer }[];
    }[];
    expect(decoded.map((b) => [b.inTransaction, b.isControlBatch, b.producerId])).toEqual([
      [true, true, String(2 ** 40 + 3)],
      [true, true, "5"],
    ]);
    expect(decoded[0]!.records[0]!.key).toEqual(Buffer.from([0, 0, 0, 1]));
  });
});
