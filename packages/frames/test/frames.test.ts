import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBatchFrame, encodeRecordFrames, readFrameRecord } from "../src/batch-frames";
import {
  encodeEndFrame,
  encodeErrorFrame,
  encodeOffsetsFrame,
  encodePartitionFrame,
} from "../src/control-frames";
import { BY_KEY_PARTITION, FRAME_KIND, FrameFormatError, NO_TIMESTAMP } from "../src/frame-kinds";
import { emptySpan } from "../src/frame-records";
import {
  encodeProduceFrames,
  type ProduceFrameInput,
  type ProduceFrameLimits,
  scanProduceFrames,
} from "../src/produce-frames";
import { decodeStoredFrame, encodeStoredHead } from "../src/stored-frames";
import { frameRecord, storedCase } from "./stored-frames.fixture";

const bytes = fc.option(
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  { nil: null },
);
const header = fc.record({ key: fc.string({ maxLength: 8 }), value: bytes });
const record = frameRecord();
const produceRecord = fc.record({
  partition: fc.constantFrom(BY_KEY_PARTITION, 0, 3),
  timestamp: fc.oneof(fc.constant(NO_TIMESTAMP), fc.nat(2 ** 42)),
  key: bytes,
  value: bytes,
  headers: fc.array(header, { maxLength: 2 }),
});

describe("frame kinds", () => {
  it("one table, no kind used twice", () => {
    const kinds = Object.values(FRAME_KIND);
    expect(new Set(kinds).size).toBe(kinds.length);
  });
});

describe("batch frames", () => {
  it("decode what was encoded, as copies or views; the position reader sees the same records", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 10 }), (records) => {
        const frame = Buffer.from(encodeRecordFrames(records));
        expect(frame[0]).toBe(FRAME_KIND.BATCH);
        expect(frame.readUInt32BE(1)).toBe(frame.length - 5);
        expect(decodeBatchFrame(frame, false)).toEqual(records);
        expect(decodeBatchFrame(frame, true)).toEqual(records);
        const span = emptySpan();
        const offsets: number[] = [];
        for (let pos = 5; pos < frame.length; ) {
          pos = readFrameRecord(new Uint8Array(frame), pos, frame.length, span);
          offsets.push(span.offset);
        }
        expect(offsets).toEqual(records.map((r) => r.offset));
      }),
    );
  });

  it("a record cut by its frame's end is refused", () => {
    const frame = Buffer.from(
      encodeRecordFrames([{ offset: 1, timestamp: 2, key: Buffer.from("k"), value: null, headers: [] }]),
    );
    expect(() => decodeBatchFrame(frame.subarray(0, frame.length - 1), false)).toThrow(FrameFormatError);
  });
});

describe("stored frames", () => {
  it("decodeStoredFrame: the records of [from, end) and of the keep list", () => {
    fc.assert(
      fc.property(storedCase, (c) => {
        const frame = Buffer.concat([encodeStoredHead(c.bytes.length, c.from, c.end, c.keepList), c.bytes]);
        expect(decodeStoredFrame(frame)).toEqual(c.expected);
      }),
    );
  });
});

describe("produce frames", () => {
  it("scan and decode what encodeProduceFrames wrote: records in order, partitions by their frames", () => {
    fc.assert(
      fc.property(
        fc.array(produceRecord, { minLength: 1, maxLength: 12 }),
        (records: ProduceFrameInput[]) => {
          const body = Buffer.from(encodeProduceFrames(records));
          const scan = scanProduceFrames(body, { maxRecords: 100 });
          expect(scan.count).toBe(records.length);
          expect(scan.firstNullKey).toBe(records.findIndex((r) => r.key === null));
          const { records: decoded, partitions } = scan.decode();
          expect(partitions).toEqual(
            records.map((r) => (r.partition === BY_KEY_PARTITION ? undefined : r.partition)),
          );
          expect(decoded).toEqual(
            records.map((r) => ({
              key: r.key,
              value: r.value,
              ...(r.timestamp === NO_TIMESTAMP ? {} : { timestamp: r.timestamp }),
              ...(r.headers.length > 0 ? { headers: r.headers } : {}),
            })),
          );
          const runs = new Set(records.map((r) => r.partition)).size === 1;
          if (runs) expect(scan.partitionRuns).toBe(1);
        },
      ),
    );
  });

  it("refuses with the reason and where: unknown frames, cut frames, limits", () => {
    const one = Buffer.from(
      encodeProduceFrames([
        {
          partition: BY_KEY_PARTITION,
          timestamp: NO_TIMESTAMP,
          key: null,
          value: null,
          headers: [{ key: "abc", value: null }],
        },
      ]),
    );
    const refusal = (body: Buffer, limits: ProduceFrameLimits = { maxRecords: 10 }) => {
      try {
        scanProduceFrames(body, limits);
      } catch (error) {
        if (error instanceof FrameFormatError) return { reason: error.reason, details: error.details };
        throw error;
      }
      return null;
    };
    expect(refusal(Buffer.concat([one, Buffer.from([9, 0, 0, 0, 0])]))).toEqual({
      reason: "malformed",
      details: { at: one.length },
    });
    expect(refusal(one.subarray(0, one.length - 1))).toEqual({ reason: "malformed", details: { at: 0 } });
    expect(refusal(Buffer.concat([one, one]), { maxRecords: 1 })).toEqual({
      reason: "invalid",
      details: { index: 1 },
    });
    expect(refusal(one, { maxRecords: 10, maxHeadersPerRecord: 0 })).toEqual({
      reason: "invalid",
      details: { index: 0 },
    });
    expect(refusal(one, { maxRecords: 10, maxHeaderNameLength: 2 })).toEqual({
      reason: "invalid",
      details: { index: 0 },
    });
    expect(refusal(Buffer.alloc(0))).toEqual({ reason: "invalid", details: {} });
    const named = Buffer.concat([Buffer.from(encodePartitionFrame(1)), one]);
    expect(refusal(named)).toBeNull();
    expect(refusal(named, { maxRecords: 10, partitionFrames: false })).toEqual({
      reason: "malformed",
      details: { at: 0 },
    });
  });
});

describe("control frames", () => {
  it("end, error, partition and offsets frames in the table's layout", () => {
    const end = Buffer.from(encodeEndFrame(12, 3));
    expect([end[0], end.readDoubleBE(1), end.readDoubleBE(9), end.length]).toEqual([
      FRAME_KIND.END,
      12,
      3,
      17,
    ]);
    const error = Buffer.from(encodeErrorFrame({ code: "X" }));
    expect([error[0], error.readUInt32BE(1), JSON.parse(error.toString("utf8", 5))]).toEqual([
      FRAME_KIND.ERROR,
      12,
      { code: "X" },
    ]);
    const partition = Buffer.from(encodePartitionFrame(BY_KEY_PARTITION));
    expect([partition[0], partition.readUInt32BE(1)]).toEqual([FRAME_KIND.PARTITION, BY_KEY_PARTITION]);
    const offsets = Buffer.from(encodeOffsetsFrame([{ partition: 2, offset: 2 ** 40 }]));
    expect([offsets[0], offsets.readUInt32BE(1), offsets.readUInt32BE(5), offsets.readDoubleBE(9)]).toEqual([
      FRAME_KIND.OFFSETS,
      1,
      2,
      2 ** 40,
    ]);
  });
});
