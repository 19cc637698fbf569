import { FRAME_KIND } from "./frame-kinds";

/** A batch frame's record, each header in it included. */
const RECORD_LAYOUT =
  "f64 offset | f64 timestamp | i32 keyLen (-1 = null) | key | i32 valueLen (-1 = tombstone) | value " +
  "| u16 headerCount | per header: u16 nameLen | name (UTF-8) | i32 valueLen (-1 = null) | value";

/**
 * Every frame's byte layout, big-endian: the one place it is written. The encoders and decoders
 * follow it, and the documents that show the formats to people (the REST API's OpenAPI
 * descriptions) are built from it (`describeFrames`).
 */
export const FRAME_LAYOUTS = {
  end: `u8 ${FRAME_KIND.END} | f64 endOffset | f64 logStartOffset`,
  error: `u8 ${FRAME_KIND.ERROR} | u32 length | JSON`,
  batch: `u8 ${FRAME_KIND.BATCH} | u32 byteLength | records, each: ${RECORD_LAYOUT}`,
  partition: `u8 ${FRAME_KIND.PARTITION} | u32 partition`,
  offsets: `u8 ${FRAME_KIND.OFFSETS} | u32 count | per partition: u32 partition | f64 next offset`,
  stored:
    `u8 ${FRAME_KIND.STORED} | u32 byteLength | f64 fromOffset | f64 endOffset | i32 keepCount (-1 = no list) ` +
    "| keepCount × f64 offset (ascending) | Kafka RecordBatch v2 batches",
} as const satisfies Record<Lowercase<keyof typeof FRAME_KIND>, string>;

export type FrameName = keyof typeof FRAME_LAYOUTS;

/** The layouts of `names`, for a document: "partition frame `u8 5 | …`; batch frame `u8 4 | …`". */
export function describeFrames(names: readonly FrameName[]): string {
  return names.map((name) => `${name} frame \`${FRAME_LAYOUTS[name]}\``).join("; ");
}
