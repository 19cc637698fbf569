/**
 * The binary answer of the streaming routes (`Accept: application/vnd.lastword.frames`), for
 * programs that rebuild state from millions of records: the workers' record batches are passed on
 * byte for byte (no per-record work on the server), framed per partition. Big-endian:
 *
 *   partition: u8 5 | u32 partition            (the batches that follow belong to it)
 *   batch:     u8 4 | u32 byteLength | records, each:
 *                f64 offset | f64 timestamp | i32 keyLen (-1 = null key) | key
 *                | i32 valueLen (-1 = tombstone) | value
 *                | u16 headerCount | per header: u16 nameLen | name (UTF-8) | i32 valueLen (-1 = null) | value
 *   stored:    u8 7 | u32 byteLength | f64 fromOffset | f64 endOffset | i32 keepCount (-1 = no list)
 *              | keepCount × f64 offset (ascending) | Kafka RecordBatch v2 batches, uncompressed, as the
 *              log stores them (varint-length records and headers). The records meant are those with
 *              fromOffset ≤ offset < endOffset and, with a list, whose offset it names: the first
 *              batch may start below the offset asked for, and a snapshot keeps each key's latest only.
 *   offsets:   u8 6 | u32 count | per partition: u32 partition | f64 next offset   (last frame: the
 *              state the records add up to, as the NDJSON end line)
 *   error:     u8 3 | u32 byteLength | RFC 9457 problem JSON   (a failure after the 200; no offsets frame)
 *
 * Workers send stored frames (no per-record work anywhere on the server) and batch frames (a sparse
 * snapshot page: fewer than half its records kept); a reader takes both. A batch or stored frame always
 * arrives whole before any later frame, so an error never cuts one.
 */
export const FRAMES_CONTENT_TYPE = "application/vnd.lastword.frames";

/** Also opens a run of records in a binary produce body (records/produce-frames.ts). */
export const PARTITION_FRAME = 5;
const OFFSETS = 6;
// Batch (4), stored (7) and error (3) frames are the data plane's own (stream-frames.ts).

export function partitionFrame(partition: number): Uint8Array {
  const out = Buffer.allocUnsafe(5);
  out.writeUInt8(PARTITION_FRAME, 0);
  out.writeUInt32BE(partition, 1);
  return out;
}

export function offsetsFrame(offsets: readonly { partition: number; offset: number }[]): Uint8Array {
  const out = Buffer.allocUnsafe(5 + offsets.length * 12);
  let pos = out.writeUInt8(OFFSETS, 0);
  pos = out.writeUInt32BE(offsets.length, pos);
  for (const o of offsets) {
    pos = out.writeUInt32BE(o.partition, pos);
    pos = out.writeDoubleBE(o.offset, pos);
  }
  return out;
}
