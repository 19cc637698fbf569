import { encodeRecordFrames, encodeStoredHead } from "@lastword/frames";
import { chunksOf, frameRecord, storedCase } from "@lastword/frames/testing";
import { encodeRecordBatch } from "@lastword/record-batch";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { envelopeOf, FrameReader, headersOf, type RawRecord, textOf } from "./binary-frames";
import { LastwordApiError } from "./problem-error";

// The REST binary stream as the server writes it: worker batch frames behind partition frames,
// the offsets frame last (@lastword/frames, frame-kinds.ts).
function frame(kind: number, n: number, rest: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(kind, 0);
  head.writeUInt32BE(n, 1);
  return Buffer.concat([head, rest]);
}
const partitionFrame = (p: number) => frame(5, p);
function offsetsFrame(offsets: [number, number][]): Buffer {
  const body = Buffer.alloc(offsets.length * 12);
  offsets.forEach(([p, o], i) => {
    body.writeUInt32BE(p, i * 12);
    body.writeDoubleBE(o, i * 12 + 4);
  });
  return frame(6, offsets.length, body);
}

function copy(r: RawRecord) {
  return {
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.keyStart < 0 ? null : Buffer.from(r.buf.subarray(r.keyStart, r.keyEnd)),
    value: r.valueStart < 0 ? null : Buffer.from(r.buf.subarray(r.valueStart, r.valueEnd)),
    headers: headersOf(r),
  };
}

interface Written {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: readonly { key: string; value: Buffer | null }[];
}

/**
 * The body of frames per partition (each with the records it means), cut into chunks of `sizes`:
 * the reader must see those records, in order, and the offsets frame.
 */
function expectReadAsWritten(
  partitions: { frame: Uint8Array; records: Written[] }[][],
  sizes: number[],
): void {
  const body = Buffer.concat([
    ...partitions.flatMap((frames, p) => [partitionFrame(p), ...frames.map((f) => f.frame)]),
    offsetsFrame(partitions.map((_, p) => [p, p * 10])),
  ]);
  const reader = new FrameReader();
  const seen: ReturnType<typeof copy>[] = [];
  for (const chunk of chunksOf(body, sizes)) reader.push(chunk, (r) => seen.push(copy(r)));
  const expected = partitions.flatMap((frames, p) =>
    frames
      .flatMap((f) => f.records)
      .map((r) => ({
        partition: p,
        offset: r.offset,
        timestamp: r.timestamp,
        key: r.key,
        value: r.value,
        headers: r.headers.map((h) => ({
          key: h.key,
          value: h.value && envelopeOf(h.value, 0, h.value.length),
        })),
      })),
  );
  expect(seen).toEqual(expected);
  expect(reader.finish()).toEqual(Object.fromEntries(partitions.map((_, p) => [p, p * 10])));
}

const record = frameRecord(300);

describe("binary stream reader", () => {
  it("reads every record and the offsets however the bytes are split across chunks", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.array(record, { maxLength: 6 }), { maxLength: 3 }), { maxLength: 4 }),
        fc.array(fc.integer({ min: 1, max: 5000 })),
        (partitions, sizes) =>
          expectReadAsWritten(
            partitions.map((batches) =>
              batches.map((rs) => ({ frame: encodeRecordFrames(rs), records: rs })),
            ),
            sizes,
          ),
      ),
      { numRuns: 200 },
    );
  });

  it("joins a record larger than a chunk from several chunks", () => {
    const big = Buffer.alloc(50_000, 7);
    const body = Buffer.concat([
      partitionFrame(2),
      encodeRecordFrames([
        { offset: 5, timestamp: 6, key: Buffer.from("a"), value: Buffer.from("x"), headers: [] },
        { offset: 9, timestamp: 9, key: Buffer.from("big"), value: big, headers: [] },
      ]),
      offsetsFrame([[2, 10]]),
    ]);
    const reader = new FrameReader();
    const seen: ReturnType<typeof copy>[] = [];
    for (const chunk of chunksOf(body, [40, 3000, 3000, 9000])) reader.push(chunk, (r) => seen.push(copy(r)));
    expect(seen.map((r) => [r.offset, r.key?.toString(), r.value?.length])).toEqual([
      [5, "a", 1],
      [9, "big", 50_000],
    ]);
    expect(seen[1]!.value!.equals(big)).toBe(true);
    expect(reader.finish()).toEqual({ 2: 10 });
  });

  it("an error frame throws the server's problem; a body without the offsets frame is incomplete", () => {
    const problem = {
      type: "about:blank",
      title: "x",
      status: 503,
      detail: "worker gone",
      code: "UNAVAILABLE",
    };
    const failed = Buffer.concat([
      partitionFrame(0),
      encodeRecordFrames([{ offset: 1, timestamp: 2, key: Buffer.from("k"), value: null, headers: [] }]),
      frame(3, Buffer.byteLength(JSON.stringify(problem)), Buffer.from(JSON.stringify(problem))),
    ]);
    const reader = new FrameReader();
    const keys: (string | null)[] = [];
    const error = (() => {
      try {
        for (const chunk of chunksOf(failed, [3, 9, 2])) {
          reader.push(chunk, (r) => keys.push(textOf(r.buf, r.keyStart, r.keyEnd)));
        }
      } catch (e) {
        return e;
      }
    })();
    expect(keys).toEqual(["k"]);
    expect(error).toBeInstanceOf(LastwordApiError);
    expect(error).toMatchObject({ status: 503, code: "UNAVAILABLE", problem: { detail: "worker gone" } });

    const cut = new FrameReader();
    cut.push(failed.subarray(0, 20), () => undefined);
    expect(() => cut.finish()).toThrow(/before its offsets frame/);
  });

  it("envelopes match the server's auto format: text (BOM dropped) or base64", () => {
    const of = (b: Buffer) => envelopeOf(b, 0, b.length);
    expect(of(Buffer.from("héllo"))).toEqual({ type: "string", data: "héllo" });
    expect(of(Buffer.from("\uFFFD ok"))).toEqual({ type: "string", data: "\uFFFD ok" });
    expect(of(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toEqual({ type: "string", data: "a" });
    expect(of(Buffer.from([0xff, 0x00]))).toEqual({ type: "base64", data: "/wA=" });
    expect(of(Buffer.alloc(0))).toEqual({ type: "string", data: "" });
  });

  // Stored frames as the worker sends them and the web passes them on.
  const storedFrame = storedCase.map((c) => ({
    frame: Buffer.concat([encodeStoredHead(c.bytes.length, c.from, c.end, c.keepList), c.bytes]),
    expected: c.expected,
  }));

  it("stored frames: the records they mean (range, keep list, gaps) however the bytes are split", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.oneof(storedFrame, fc.array(record, { maxLength: 3 })), { maxLength: 3 }), {
          maxLength: 3,
        }),
        fc.array(fc.integer({ min: 1, max: 700 })),
        (partitions, sizes) =>
          expectReadAsWritten(
            partitions.map((frames) =>
              frames.map((f) =>
                Array.isArray(f)
                  ? { frame: encodeRecordFrames(f), records: f }
                  : { frame: f.frame, records: f.expected },
              ),
            ),
            sizes,
          ),
      ),
      { numRuns: 200 },
    );
  });

  it("stored frames: a first batch below the offset asked for, gaps, and a snapshot's keep list", () => {
    const batch = (baseOffset: number, deltas: number[]) =>
      encodeRecordBatch(
        deltas.map((offsetDelta) => ({
          key: Buffer.from(`k${baseOffset + offsetDelta}`),
          value: Buffer.from("v"),
          offsetDelta,
        })),
        { baseOffset, appendTimeMs: 5 },
      );
    const bytes = Buffer.concat([batch(10, [0, 3, 4]), batch(20, [0, 5])]); // 10 13 14 | 20 25
    const keys = (from: number, end: number, keep: number[] | null) => {
      const body = Buffer.concat([
        partitionFrame(0),
        encodeStoredHead(bytes.length, from, end, keep),
        bytes,
        offsetsFrame([[0, end]]),
      ]);
      const reader = new FrameReader();
      const seen: (string | null)[] = [];
      for (const chunk of chunksOf(body, [7, 30, 1, 64]))
        reader.push(chunk, (r) => seen.push(textOf(r.buf, r.keyStart, r.keyEnd)));
      expect(reader.finish()).toEqual({ 0: end });
      return seen;
    };
    expect(keys(13, 26, null)).toEqual(["k13", "k14", "k20", "k25"]);
    expect(keys(11, 25, null)).toEqual(["k13", "k14", "k20"]);
    expect(keys(0, 26, [12, 14, 19, 25])).toEqual(["k14", "k25"]);
  });

  it("stored frames: a length past the frame's end throws, and a cut frame leaves the stream incomplete", () => {
    const bytes = encodeRecordBatch([{ key: Buffer.from("key"), value: Buffer.from("value") }], {
      baseOffset: 0,
      appendTimeMs: 5,
    });
    const bodyOf = (batches: Buffer) =>
      Buffer.concat([
        partitionFrame(0),
        encodeStoredHead(batches.length, 0, 10, null),
        batches,
        offsetsFrame([[0, 1]]),
      ]);
    const bad = Buffer.from(bytes);
    bad[bad.indexOf("value") - 1] = 0x7e; // value length 63: past the record
    expect(() => new FrameReader().push(bodyOf(bad), () => undefined)).toThrow(/overruns/);
    const longBatch = Buffer.from(bytes);
    longBatch.writeInt32BE(longBatch.readInt32BE(8) + 100, 8); // batch length past the frame
    expect(() => new FrameReader().push(bodyOf(longBatch), () => undefined)).toThrow(/overruns/);
    const cut = new FrameReader();
    cut.push(bodyOf(bytes).subarray(0, 40), () => undefined);
    expect(() => cut.finish()).toThrow(/before its offsets frame/);
  });
});
