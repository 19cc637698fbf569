import { encodeEndFrame, encodeErrorFrame, encodeRecordFrames, encodeStoredHead } from "@lastword/frames";
import { chunksOf, frameRecord, storedCase } from "@lastword/frames/testing";
import { encodeRecordBatch } from "@lastword/record-batch";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DataPlaneError } from "./errors";
import type { FetchedRecord } from "./record-codec";
import { decodeRecordBatch, decodeStreamFrames, splitStreamFrames } from "./stream-frames";

const record = frameRecord();

/** The chunks of `chunksOf` as a body's async iterable. */
async function* chunked(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Buffer> {
  yield* chunksOf(bytes, sizes);
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

  it("stored frames: the records of [from, end) (and of the keep list) however the bytes are split", async () => {
    await fc.assert(
      fc.asyncProperty(storedCase, fc.array(fc.integer({ min: 1, max: 60 })), async (c, sizes) => {
        const head = encodeStoredHead(c.bytes.length, c.from, c.end, c.keepList);
        const body = Buffer.concat([head, c.bytes, encodeEndFrame(c.end, 0)]);
        const { records, end } = await collect(chunked(body, sizes));
        expect(records).toEqual(c.expected);
        expect(end).toBe(c.end);
        const seen: Buffer[] = [];
        for await (const piece of splitStreamFrames(chunked(body, sizes))) {
          if (piece.kind === "batch") seen.push(Buffer.concat(piece.parts));
        }
        expect(seen).toEqual([Buffer.concat([head, c.bytes])]);
      }),
      { numRuns: 200 },
    );
  });

  it("stored frames: a first batch starting below the offset asked for, and compaction gaps", async () => {
    const batch = (baseOffset: number, deltas: number[]) =>
      encodeRecordBatch(
        deltas.map((offsetDelta) => ({
          key: Buffer.from(`k${baseOffset + offsetDelta}`),
          value: null,
          offsetDelta,
        })),
        { baseOffset, appendTimeMs: 5 },
      );
    // Offsets 10, 13, 14 | 20, 25 (15–19 and 21–24 compacted away).
    const bytes = Buffer.concat([batch(10, [0, 3, 4]), batch(20, [0, 5])]);
    const offsetsOf = async (from: number, end: number, keep: number[] | null) => {
      const body = Buffer.concat([
        encodeStoredHead(bytes.length, from, end, keep),
        bytes,
        encodeEndFrame(end, 0),
      ]);
      return (await collect(chunked(body, []))).records.map((r) => r.offset);
    };
    expect(await offsetsOf(13, 100, null)).toEqual([13, 14, 20, 25]);
    expect(await offsetsOf(11, 25, null)).toEqual([13, 14, 20]);
    expect(await offsetsOf(0, 100, [12, 14, 19, 25, 30])).toEqual([14, 25]);
    expect(await offsetsOf(15, 100, [])).toEqual([]);
  });

  it("stored frames: lengths that overrun the frame are an error, never a read out of bounds", async () => {
    const bytes = encodeRecordBatch([{ key: Buffer.from("key"), value: Buffer.from("value") }], {
      baseOffset: 0,
      appendTimeMs: 5,
    });
    const frameOf = (batches: Buffer) =>
      Buffer.concat([encodeStoredHead(batches.length, 0, 10, null), batches]);
    // Cut inside the batch: the batch length runs past the frame.
    await expect(
      collect(chunked(Buffer.concat([frameOf(bytes.subarray(0, 70)), encodeEndFrame(1, 0)]), [])),
    ).rejects.toMatchObject({ code: "INTERNAL" });
    // A value length past the record's end.
    const bad = Buffer.from(bytes);
    const valueLengthAt = bad.indexOf("value") - 1;
    bad[valueLengthAt] = 0x7e; // zigzag 63
    await expect(
      collect(chunked(Buffer.concat([frameOf(bad), encodeEndFrame(1, 0)]), [])),
    ).rejects.toMatchObject({ code: "INTERNAL" });
    // A keep list longer than the frame.
    const head = Buffer.from(encodeStoredHead(0, 0, 10, [1, 2]));
    head.writeInt32BE(1000, 21);
    await expect(collect(chunked(Buffer.concat([head, encodeEndFrame(1, 0)]), []))).rejects.toMatchObject({
      code: "INTERNAL",
    });
  });
});
