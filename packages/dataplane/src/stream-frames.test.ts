import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DataPlaneError } from "./errors";
import type { FetchedRecord } from "./record-codec";
import {
  decodeRecordBatch,
  decodeStreamFrames,
  encodeEndFrame,
  encodeErrorFrame,
  encodeRecordFrames,
  splitStreamFrames,
} from "./stream-frames";

const bytes = fc.option(fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)));
const record = fc.record({
  offset: fc.nat(1_000_000),
  timestamp: fc.nat(2 ** 42),
  key: bytes,
  value: bytes,
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: bytes }), { maxLength: 2 }),
});

async function* chunked(buf: Buffer, sizes: number[]): AsyncGenerator<Buffer> {
  let pos = 0;
  for (const size of sizes) {
    if (pos >= buf.length) break;
    yield buf.subarray(pos, pos + size);
    pos += size;
  }
  if (pos < buf.length) yield buf.subarray(pos);
}

async function collect(chunks: AsyncIterable<Buffer>) {
  const records: FetchedRecord[] = [];
  let end: number | null = null;
  for await (const frame of decodeStreamFrames(chunks)) {
    if (frame.kind === "records") records.push(...frame.records);
    else end = frame.endOffset;
  }
  return { records, end };
}

describe("stream frames", () => {
  it("decode what was encoded however the bytes are split (tombstone ≠ empty value)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { maxLength: 30 }),
        fc.array(fc.integer({ min: 1, max: 40 })),
        async (rs, sizes) => {
          const body = Buffer.concat([encodeRecordFrames(rs), encodeEndFrame(1234, 5)]);
          const { records, end } = await collect(chunked(body, sizes));
          expect(records).toEqual(rs);
          expect(end).toBe(1234);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("an error frame becomes the worker's DataPlaneError; a cut body is an error too", async () => {
    const failed = Buffer.concat([
      encodeRecordFrames([{ offset: 1, timestamp: 2, key: null, value: null, headers: [] }]),
      encodeErrorFrame({ code: "PARTITION_UNAVAILABLE", message: "closed", retriable: true }),
    ]);
    const error = await collect(chunked(failed, [7])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataPlaneError);
    expect(error).toMatchObject({ code: "PARTITION_UNAVAILABLE", retriable: true });
    const cut = encodeRecordFrames([
      { offset: 1, timestamp: 2, key: Buffer.from("k"), value: null, headers: [] },
    ]);
    await expect(collect(chunked(cut, [100]))).rejects.toMatchObject({ code: "INTERNAL" });
  });

  it("split passes whole batch frames on byte for byte, however the bytes arrive", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(record, { maxLength: 10 }), { maxLength: 5 }),
        fc.array(fc.integer({ min: 1, max: 40 })),
        async (batches, sizes) => {
          const frames = batches.map((rs) => encodeRecordFrames(rs));
          const body = Buffer.concat([...frames, encodeEndFrame(77, 3)]);
          const seen: Buffer[] = [];
          let end: number | null = null;
          for await (const piece of splitStreamFrames(chunked(body, sizes))) {
            if (piece.kind === "batch") seen.push(Buffer.concat(piece.parts));
            else end = piece.endOffset;
          }
          expect(seen).toEqual(frames);
          expect(end).toBe(77);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("split never hands on half a batch: a body cut inside one, or an error frame, throws first", async () => {
    const batch = encodeRecordFrames([
      { offset: 1, timestamp: 2, key: Buffer.from("k"), value: Buffer.from("v".repeat(50)), headers: [] },
    ]);
    const pieces: unknown[] = [];
    const cut = (async () => {
      for await (const piece of splitStreamFrames(chunked(batch.subarray(0, 30), [7]))) pieces.push(piece);
    })();
    await expect(cut).rejects.toMatchObject({ code: "INTERNAL" });
    expect(pieces).toEqual([]);
    const failed = Buffer.concat([
      batch,
      encodeErrorFrame({ code: "CORRUPT_SEGMENT", message: "bad crc", retriable: false }),
    ]);
    const kinds: string[] = [];
    const error = await (async () => {
      for await (const piece of splitStreamFrames(chunked(failed, [3, 60, 9, 4]))) kinds.push(piece.kind);
    })().catch((e: unknown) => e);
    expect(kinds).toEqual(["batch"]);
    expect(error).toMatchObject({ code: "CORRUPT_SEGMENT", message: "bad crc", retriable: false });
  });

  it("decodeRecordBatch with views: the same records, whose bytes change with the frame's", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 20 }), (rs) => {
        const frame = encodeRecordFrames(rs);
        const copied = decodeRecordBatch([frame]);
        const viewed = decodeRecordBatch([frame], { views: true });
        expect(viewed).toEqual(rs);
        expect(copied).toEqual(rs);
        frame.fill(0xee, 5);
        const marked = (b: Buffer | null) => b !== null && b.length > 0 && b.every((x) => x === 0xee);
        for (const [i, r] of viewed.entries()) {
          const source = rs[i]!;
          if (source.value?.length) {
            expect(marked(r.value)).toBe(true);
            expect(copied[i]!.value).toEqual(source.value);
          }
          if (source.key?.length) expect(marked(r.key)).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });
});
