import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeRecordFrames } from "../src/batch-frames";
import {
  DATA_PLANE_STREAM_KINDS,
  encodeEndFrame,
  encodeErrorFrame,
  encodeOffsetsFrame,
  encodePartitionFrame,
} from "../src/control-frames";
import { FRAME_KIND, FrameFormatError } from "../src/frame-kinds";
import type { FrameName } from "../src/frame-layouts";
import { FrameSplitter, wholeFrame } from "../src/frame-splitter";
import { encodeStoredHead } from "../src/stored-frames";
import { chunksOf, frameRecord, storedCase } from "./stored-frames.fixture";

const REST_KINDS = [
  FRAME_KIND.PARTITION,
  FRAME_KIND.BATCH,
  FRAME_KIND.STORED,
  FRAME_KIND.OFFSETS,
  FRAME_KIND.ERROR,
];

/** Any frame a stream carries before its last, as the encoders write it. */
const frame: fc.Arbitrary<{ name: FrameName; bytes: Uint8Array }> = fc.oneof(
  fc.nat().map((p) => ({ name: "partition" as const, bytes: encodePartitionFrame(p) })),
  fc
    .array(frameRecord(40), { maxLength: 6 })
    .map((rs) => ({ name: "batch" as const, bytes: encodeRecordFrames(rs) })),
  storedCase.map((c) => ({
    name: "stored" as const,
    bytes: Buffer.concat([encodeStoredHead(c.bytes.length, c.from, c.end, c.keepList), c.bytes]),
  })),
);

const offsets = fc
  .array(fc.record({ partition: fc.nat(), offset: fc.nat(2 ** 40) }), { maxLength: 4 })
  .map((os) => ({ name: "offsets" as const, bytes: encodeOffsetsFrame(os) }));

function split(splitter: FrameSplitter, chunks: Uint8Array[]) {
  const seen: { name: FrameName; bytes: Uint8Array }[] = [];
  for (const chunk of chunks) {
    splitter.push(chunk, (f) => {
      expect(f.kind).toBe(f.parts[0]![0]);
      seen.push({ name: f.name, bytes: Buffer.from(wholeFrame(f.parts)) });
    });
  }
  return seen;
}

describe("FrameSplitter (the one reassembler of the frame streams)", () => {
  it("any chunking of a stream yields the same frames, whole and in order", () => {
    fc.assert(
      fc.property(
        fc.array(frame, { maxLength: 8 }),
        offsets,
        fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 60 }),
        (frames, last, sizes) => {
          const written = [...frames, last].map((f) => ({ name: f.name, bytes: Buffer.from(f.bytes) }));
          const body = Buffer.concat(written.map((f) => f.bytes));
          const splitter = new FrameSplitter(REST_KINDS, [FRAME_KIND.OFFSETS]);
          expect(split(splitter, chunksOf(body, sizes))).toEqual(written);
          expect(splitter.midFrame).toBe(false);
          // Cut anywhere: the frames wholly before the cut come out, and the splitter says whether
          // the cut fell inside one.
          const cutAt = sizes.length ? sizes[0]! % (body.length + 1) : 0;
          const cut = new FrameSplitter(REST_KINDS, [FRAME_KIND.OFFSETS]);
          const before: typeof written = [];
          let wholeBytes = 0;
          for (const f of written) {
            if (wholeBytes + f.bytes.length > cutAt) break;
            before.push(f);
            wholeBytes += f.bytes.length;
          }
          expect(split(cut, chunksOf(body.subarray(0, cutAt), sizes.slice(1)))).toEqual(before);
          expect(cut.midFrame).toBe(wholeBytes < cutAt);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("FrameSplitter refuses what the stream does not carry", () => {
  it("a kind outside the stream's, and any byte after its last frame, throw FrameFormatError", () => {
    const dataPlane = () => new FrameSplitter(DATA_PLANE_STREAM_KINDS, [FRAME_KIND.END]);
    expect(() => dataPlane().push(encodePartitionFrame(1), () => undefined)).toThrow(
      new FrameFormatError(`stream frame of unknown kind ${FRAME_KIND.PARTITION}`),
    );
    expect(() => dataPlane().push(Uint8Array.of(99), () => undefined)).toThrow(/unknown kind 99/);
    const ended = dataPlane();
    const names: FrameName[] = [];
    ended.push(encodeEndFrame(5, 0), (f) => names.push(f.name));
    expect(names).toEqual(["end"]);
    expect(() => ended.push(Uint8Array.of(FRAME_KIND.BATCH), () => undefined)).toThrow(
      /after the stream's last frame/,
    );
  });

  it("measures each kind by its layout: an error frame's JSON and an end frame's fixed head", () => {
    const error = encodeErrorFrame({ code: "X" });
    const body = Buffer.concat([error.subarray(0, 3), error.subarray(3), encodeEndFrame(9, 1)]);
    const splitter = new FrameSplitter([FRAME_KIND.ERROR, FRAME_KIND.END], [FRAME_KIND.END]);
    const seen = split(splitter, chunksOf(body, [2, 1, 4, 20]));
    expect(seen.map((f) => [f.name, f.bytes.length])).toEqual([
      ["error", error.length],
      ["end", 17],
    ]);
  });
});
