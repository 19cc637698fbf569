/**
 * The binary frames of the data plane (worker ↔ web) and of the REST API (web ↔ client): one table of
 * kinds, the sizes and limits every encoder and decoder of them uses. Each frame's byte layout is
 * written once, in `FRAME_LAYOUTS` (frame-layouts.ts). What the fields mean:
 *
 *   end:       the data plane stream's last frame; records below endOffset were all considered.
 *   error:     a failure after the 200 was sent: the worker's { code, message, retriable }, or on the
 *              REST stream an RFC 9457 problem.
 *   batch:     records one by one; a length of -1 is a null key, a tombstone or a null header value.
 *   partition: REST: the record frames that follow belong to it; in a produce body the batch frames
 *              that follow go to it, BY_KEY_PARTITION = back to the key hash.
 *   offsets:   the REST stream's last frame: each partition's next offset.
 *   stored:    Kafka RecordBatch v2 batches, uncompressed, byte for byte as the log stores them
 *              (@lastword/record-batch). The records meant are those with fromOffset ≤ offset <
 *              endOffset and, with a keep list, whose offset it names.
 *
 * Streams: the data plane's (`STREAM_CONTENT_TYPE`) is batch and stored frames, then end (or error);
 * the REST API's (`FRAMES_CONTENT_TYPE`) is a partition frame before each partition's batch and
 * stored frames (the workers' own, passed on byte for byte), then offsets (or error). A binary
 * produce body (`FRAMES_CONTENT_TYPE`) is partition and batch frames; in a batch frame of a produce
 * the offset is ignored and timestamp NO_TIMESTAMP means "stamp it on append".
 */
export const FRAME_KIND = {
  END: 2,
  ERROR: 3,
  BATCH: 4,
  PARTITION: 5,
  OFFSETS: 6,
  STORED: 7,
} as const;

/** u8 kind | u32 (a length, or the partition frame's partition, or the offsets frame's count). */
export const FRAME_HEADER_BYTES = 5;
/** The whole end frame. */
export const END_FRAME_BYTES = 17;
/** A stored frame's fields before its keep list: f64 from | f64 end | i32 keepCount. */
export const STORED_HEAD_BYTES = 20;
/** A batch-frame record's fixed part: f64 offset | f64 timestamp. */
export const RECORD_FIXED_BYTES = 16;
/** An offsets-frame entry: u32 partition | f64 offset. */
export const OFFSETS_ENTRY_BYTES = 12;
/** In a produce body's partition frame: the records that follow are routed by key. */
export const BY_KEY_PARTITION = 0xffffffff;
/** A produce record's timestamp meaning "none given" (the worker stamps it). */
export const NO_TIMESTAMP = -1;

/** The REST API's binary stream answer and binary produce body; also the data plane's record-frames produce body. */
export const FRAMES_CONTENT_TYPE = "application/vnd.lastword.frames";
/** The data plane's streamed partition (fetch, replay, snapshot), worker → web. */
export const STREAM_CONTENT_TYPE = "application/x-lastword-stream";
/** The data plane's little-endian produce body (binary-records.ts), web → worker. */
export const BINARY_RECORDS_CONTENT_TYPE = "application/vnd.lastword.records";

/**
 * Bytes that break a frame format. `reason` "malformed": the bytes are not the format (cut, unknown
 * kind, a length past its frame); "invalid": well-formed but refused by a limit (record count, a
 * timestamp, a header). `at`: byte position of the frame; `index`: the record's index in the body.
 */
export class FrameFormatError extends Error {
  constructor(
    message: string,
    readonly reason: "malformed" | "invalid" = "malformed",
    readonly details: { at?: number; index?: number; keyBytes?: number } = {},
  ) {
    super(message);
  }
}
