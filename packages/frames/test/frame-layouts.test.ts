import { describe, expect, it } from "vitest";
import { encodeRecordFrames } from "../src/batch-frames";
import {
  encodeEndFrame,
  encodeErrorFrame,
  encodeOffsetsFrame,
  encodePartitionFrame,
  readStreamFrameHead,
  streamFrameHeadBytes,
} from "../src/control-frames";
import {
  END_FRAME_BYTES,
  FRAME_HEADER_BYTES,
  FRAME_KIND,
  FrameFormatError,
  OFFSETS_ENTRY_BYTES,
  RECORD_FIXED_BYTES,
  STORED_HEAD_BYTES,
} from "../src/frame-kinds";
import { describeFrames, FRAME_LAYOUTS, type FrameName } from "../src/frame-layouts";
import { encodeStoredHead } from "../src/stored-frames";

const WIDTH: Record<string, number> = { u8: 1, u16: 2, i32: 4, u32: 4, f64: 8 };

/** The fixed-width fields at the start of a layout (or of its part after `from`), up to the first that is not. */
function leadingFields(layout: string, from = ""): { type: string; name: string; at: number }[] {
  const fields = [];
  let at = 0;
  for (const part of layout.slice(layout.indexOf(from) + from.length).split("|")) {
    const match = /^\s*(u8|u16|i32|u32|f64) (\S+)/.exec(part);
    if (!match) break;
    fields.push({ type: match[1]!, name: match[2]!, at });
    at += WIDTH[match[1]!]!;
  }
  return fields;
}

const size = (fields: { type: string }[]) => fields.reduce((sum, f) => sum + WIDTH[f.type]!, 0);

describe("frame layouts (the one written description of the formats)", () => {
  it("name every kind of the table, each starting with its kind byte", () => {
    for (const [name, layout] of Object.entries(FRAME_LAYOUTS)) {
      const kind = FRAME_KIND[name.toUpperCase() as keyof typeof FRAME_KIND];
      expect(layout.startsWith(`u8 ${kind} |`), name).toBe(true);
    }
    expect(Object.keys(FRAME_LAYOUTS).sort()).toEqual(
      Object.keys(FRAME_KIND)
        .map((k) => k.toLowerCase())
        .sort(),
    );
  });

  it("add up to the sizes the encoders and decoders use", () => {
    expect(size(leadingFields(FRAME_LAYOUTS.end))).toBe(END_FRAME_BYTES);
    for (const name of ["error", "batch", "partition", "offsets", "stored"] as const) {
      expect(size(leadingFields(FRAME_LAYOUTS[name]).slice(0, 2)), name).toBe(FRAME_HEADER_BYTES);
    }
    expect(size(leadingFields(FRAME_LAYOUTS.stored).slice(2))).toBe(STORED_HEAD_BYTES);
    expect(size(leadingFields(FRAME_LAYOUTS.batch, "each:").slice(0, 2))).toBe(RECORD_FIXED_BYTES);
    expect(size(leadingFields(FRAME_LAYOUTS.offsets, "per partition:"))).toBe(OFFSETS_ENTRY_BYTES);
  });

  it("place the fields where the encoders write them", () => {
    const at = (name: FrameName, field: string, from?: string) =>
      leadingFields(FRAME_LAYOUTS[name], from).find((f) => f.name === field)!.at;
    const end = Buffer.from(encodeEndFrame(12, 3));
    expect([end.readDoubleBE(at("end", "endOffset")), end.readDoubleBE(at("end", "logStartOffset"))]).toEqual(
      [12, 3],
    );
    const stored = Buffer.from(encodeStoredHead(100, 5, 9, [6, 8]));
    expect([
      stored.readDoubleBE(at("stored", "fromOffset")),
      stored.readDoubleBE(at("stored", "endOffset")),
      stored.readInt32BE(at("stored", "keepCount")),
    ]).toEqual([5, 9, 2]);
    const offsets = Buffer.from(encodeOffsetsFrame([{ partition: 4, offset: 77 }]));
    const entry = FRAME_HEADER_BYTES;
    expect([
      offsets.readUInt32BE(entry + at("offsets", "partition", "per partition:")),
      offsets.readDoubleBE(entry + at("offsets", "next", "per partition:")),
    ]).toEqual([4, 77]);
    expect(Buffer.from(encodePartitionFrame(3)).readUInt32BE(at("partition", "partition"))).toBe(3);
  });

  it("describe frames for documents in the table's words", () => {
    expect(describeFrames(["partition", "end"])).toBe(
      `partition frame \`${FRAME_LAYOUTS.partition}\`; end frame \`${FRAME_LAYOUTS.end}\``,
    );
  });
});

describe("data-plane stream frame heads", () => {
  it("read the end frame whole and the others' body lengths, as encoded", () => {
    expect(readStreamFrameHead(encodeEndFrame(2 ** 40, 7))).toEqual({
      kind: "end",
      endOffset: 2 ** 40,
      logStartOffset: 7,
    });
    const error = encodeErrorFrame({ code: "NOT_OWNER" });
    expect(readStreamFrameHead(error.subarray(0, streamFrameHeadBytes(error[0])))).toEqual({
      kind: "error",
      bodyBytes: error.length - FRAME_HEADER_BYTES,
    });
    const batch = encodeRecordFrames([{ offset: 1, timestamp: 2, key: null, value: null, headers: [] }]);
    expect(readStreamFrameHead(batch)).toEqual({
      kind: "batch",
      bodyBytes: batch.length - FRAME_HEADER_BYTES,
    });
    expect(readStreamFrameHead(encodeStoredHead(100, 0, 1, null))).toEqual({
      kind: "stored",
      bodyBytes: STORED_HEAD_BYTES + 100,
    });
  });

  it("know how much head each kind needs, and refuse kinds the stream does not carry or a cut head", () => {
    expect(streamFrameHeadBytes(FRAME_KIND.END)).toBe(END_FRAME_BYTES);
    expect(streamFrameHeadBytes(FRAME_KIND.STORED)).toBe(FRAME_HEADER_BYTES);
    expect(streamFrameHeadBytes(FRAME_KIND.PARTITION)).toBe(-1);
    expect(streamFrameHeadBytes(undefined)).toBe(-1);
    expect(() => readStreamFrameHead(encodePartitionFrame(1))).toThrow(FrameFormatError);
    expect(() => readStreamFrameHead(encodeEndFrame(1, 0).subarray(0, 9))).toThrow(/cut at 9 bytes/);
  });
});
