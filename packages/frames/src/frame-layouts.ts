import { u32 } from "./frame-bytes";
import { FRAME_KIND, OFFSETS_ENTRY_BYTES } from "./frame-kinds";

/** A batch frame's record, each header in it included. */
const RECORD_LAYOUT =
  "f64 offset | f64 timestamp | i32 keyLen (-1 = null) | key | i32 valueLen (-1 = tombstone) | value " +
  "| u16 headerCount | per header: u16 nameLen | name (UTF-8) | i32 valueLen (-1 = null) | value";

type HeadField = `${"u32" | "f64"} ${string}`;

/**
 * One frame's format: the fixed fields of its head after the kind byte, and what follows the head.
 * A body's length is the head's first field (a u32) times `entryBytes`; a frame without a body is
 * its head alone.
 */
interface FrameFormat {
  readonly head: readonly HeadField[];
  readonly body?: { readonly text: string; readonly entryBytes: number };
}

/**
 * Every frame's byte layout, big-endian, as data: the one place it is written. The reassembler
 * (FrameSplitter) cuts streams by it, the frame heads are read by it, and the documents that show
 * the formats to people (the REST API's OpenAPI descriptions) are built from it (`describeFrames`).
 */
export const FRAME_FORMATS = {
  end: { head: ["f64 endOffset", "f64 logStartOffset"] },
  error: { head: ["u32 length"], body: { text: "JSON", entryBytes: 1 } },
  batch: { head: ["u32 byteLength"], body: { text: `records, each: ${RECORD_LAYOUT}`, entryBytes: 1 } },
  partition: { head: ["u32 partition"] },
  offsets: {
    head: ["u32 count"],
    body: { text: "per partition: u32 partition | f64 next offset", entryBytes: OFFSETS_ENTRY_BYTES },
  },
  stored: {
    head: ["u32 byteLength"],
    body: {
      text:
        "f64 fromOffset | f64 endOffset | i32 keepCount (-1 = no list) " +
        "| keepCount × f64 offset (ascending) | Kafka RecordBatch v2 batches",
      entryBytes: 1,
    },
  },
} as const satisfies Record<Lowercase<keyof typeof FRAME_KIND>, FrameFormat>;

export type FrameName = keyof typeof FRAME_FORMATS;

const FIELD_BYTES = { u32: 4, f64: 8 } as const;

function layoutOf(name: FrameName): string {
  const format: FrameFormat = FRAME_FORMATS[name];
  const kind = FRAME_KIND[name.toUpperCase() as Uppercase<FrameName>];
  return [`u8 ${kind}`, ...format.head, ...(format.body ? [format.body.text] : [])].join(" | ");
}

/** Each frame's layout as one line of text: "u8 5 | u32 partition", … (for documents and tests). */
export const FRAME_LAYOUTS = Object.fromEntries(
  Object.keys(FRAME_FORMATS).map((name) => [name, layoutOf(name as FrameName)]),
) as Record<FrameName, string>;

/** What a reader needs of a kind: its name, its head's size, and its body's size read from the head. */
export interface FrameShape {
  readonly name: FrameName;
  readonly headBytes: number;
  readonly bodyBytes: (head: Uint8Array, at: number) => number;
}

function shapeOf(name: FrameName): FrameShape {
  const format: FrameFormat = FRAME_FORMATS[name];
  const headBytes = 1 + format.head.reduce((sum, field) => sum + FIELD_BYTES[field.slice(0, 3) as "u32"], 0);
  const entryBytes = format.body?.entryBytes;
  return {
    name,
    headBytes,
    bodyBytes: entryBytes === undefined ? () => 0 : (head, at) => u32(head, at + 1) * entryBytes,
  };
}

/** The shape of each frame kind, by its kind byte (the table the reassembler and head readers use). */
export const FRAME_SHAPES: ReadonlyMap<number, FrameShape> = new Map(
  (Object.keys(FRAME_FORMATS) as FrameName[]).map((name) => [
    FRAME_KIND[name.toUpperCase() as Uppercase<FrameName>],
    shapeOf(name),
  ]),
);

/** The layouts of `names`, for a document: "partition frame `u8 5 | …`; batch frame `u8 4 | …`". */
export function describeFrames(names: readonly FrameName[]): string {
  return names.map((name) => `${name} frame \`${FRAME_LAYOUTS[name]}\``).join("; ");
}
