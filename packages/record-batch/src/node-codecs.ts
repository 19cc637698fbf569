import {
  constants,
  createGunzip,
  createZstdDecompress,
  gunzipSync,
  gzipSync,
  zstdCompressSync,
  zstdDecompressSync,
} from "node:zlib";
import { compressFrameSync, decompressFrameSync } from "lz4-napi";
import { compressSync as snappyCompress, uncompressSync as snappyUncompress } from "snappy";
import {
  CODEC_IDS,
  type CompressionCodec,
  CompressionError,
  compressionCodec,
  useCompressionCodecs,
} from "./compression";
import {
  BATCH_HEADER_BYTES,
  batchCompression,
  batchWithRecords,
  LOG_OVERHEAD_BYTES,
  OFF_LENGTH,
  readInt32,
} from "./record-batch";

// The four codecs for Node processes, installed by importing this module (the log store does):
// gzip and zstd from node:zlib, snappy and lz4 from napi-rs packages whose binaries are npm
// optional dependencies. Each checks the size cap before it allocates the output where the format
// states sizes up front (snappy, lz4), or lets zlib stop at the cap (gzip, zstd).

function tooLarge(name: string, maxBytes: number): CompressionError {
  return new CompressionError(`the ${name} records section decompresses to more than ${maxBytes} bytes`);
}

function corrupt(name: string, error: unknown): CompressionError {
  if (error instanceof CompressionError) return error;
  return new CompressionError(`the ${name} records section does not decompress: ${(error as Error).message}`);
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** zlib's own output limit: it stops inflating at the cap rather than after. */
function zlibCodec(
  name: "gzip" | "zstd",
  compress: (bytes: Buffer) => Buffer,
  decompress: (bytes: Buffer, options: { maxOutputLength: number }) => Buffer,
): CompressionCodec {
  return {
    name,
    compress: (records) => compress(asBuffer(records)),
    decompress(compressed, maxBytes) {
      try {
        return decompress(asBuffer(compressed), { maxOutputLength: Math.max(maxBytes, 1) });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(name, maxBytes);
        throw corrupt(name, error);
      }
    },
  };
}

const gzip = zlibCodec("gzip", (b) => gzipSync(b), gunzipSync);
const zstd = zlibCodec(
  "zstd",
  (b) => zstdCompressSync(b, { params: { [constants.ZSTD_c_compressionLevel]: 3 } }),
  zstdDecompressSync,
);

// Snappy in Kafka: the Java client frames it as snappy-java's stream (the "xerial" framing: an
// 8-byte magic, two version ints, then chunks of [int32 length][raw snappy block]); librdkafka and
// kafkajs write one raw block. Both are read; the log writes the Java framing, as Kafka does.
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;
/** snappy-java's default block: what SnappyOutputStream chunks by. */
const XERIAL_CHUNK_BYTES = 32 * 1024;

/** The uncompressed length a raw snappy block states in its varint preamble. */
function snappyLength(block: Buffer): number {
  let value = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    const byte = block[i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if (byte < 0x80) return value;
  }
  throw new CompressionError("the snappy block has no valid length preamble");
}

function snappyBlock(block: Buffer, budget: number, maxBytes: number): Buffer {
  if (snappyLength(block) > budget) throw tooLarge("snappy", maxBytes);
  return snappyUncompress(block, { asBuffer: true }) as Buffer;
}

function xerialChunks(framed: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = XERIAL_HEADER_BYTES; at < framed.length; ) {
    if (at + 4 > framed.length) throw new CompressionError("a snappy-java chunk length is cut short");
    const length = framed.readInt32BE(at);
    at += 4;
    if (length < 0 || at + length > framed.length)
      throw new CompressionError("a snappy-java chunk runs past the records section");
    chunks.push(framed.subarray(at, at + length));
    at += length;
  }
  return chunks;
}

const snappy: CompressionCodec = {
  name: "snappy",
  compress(records) {
    const plain = asBuffer(records);
    // Version 1, compatible with 1: what snappy-java writes and checks.
    const parts: Buffer[] = [XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])];
    const chunks = Math.max(1, Math.ceil(plain.length / XERIAL_CHUNK_BYTES));
    for (let i = 0; i < chunks; i++) {
      const block = snappyCompress(plain.subarray(i * XERIAL_CHUNK_BYTES, (i + 1) * XERIAL_CHUNK_BYTES));
      const length = Buffer.allocUnsafe(4);
      length.writeInt32BE(block.length, 0);
      parts.push(length, block);
    }
    return Buffer.concat(parts);
  },
  decompress(compressed, maxBytes) {
    const bytes = asBuffer(compressed);
    try {
      const framed = bytes.length >= XERIAL_HEADER_BYTES && bytes.subarray(0, 8).equals(XERIAL_MAGIC);
      if (!framed) return snappyBlock(bytes, maxBytes, maxBytes);
      const chunks = xerialChunks(bytes);
      let total = 0;
      for (const chunk of chunks) total += snappyLength(chunk);
      if (total > maxBytes) throw tooLarge("snappy", maxBytes);
      return Buffer.concat(chunks.map((chunk) => snappyBlock(chunk, maxBytes, maxBytes)));
    } catch (error) {
      throw corrupt("snappy", error);
    }
  },
};

// LZ4 in Kafka's v2 batches is the LZ4 frame format. Its header names the block size and each
// block states its compressed length, so the most a frame can decompress to (blocks × block
// size) is known from a walk over the lengths, before anything is decompressed.
const LZ4_MAGIC = 0x184d2204;
const LZ4_BLOCK_BYTES = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20];

/** Upper bound of what the LZ4 frames in `bytes` decompress to; throws for a malformed frame. */
function lz4Bound(bytes: Buffer): number {
  let bound = 0;
  let at = 0;
  while (at < bytes.length) {
    if (at + 7 > bytes.length || bytes.readUInt32LE(at) !== LZ4_MAGIC)
      throw new CompressionError("the lz4 records section is not an LZ4 frame");
    const flags = bytes[at + 4]!;
    const blockBytes = LZ4_BLOCK_BYTES[(bytes[at + 5]! >> 4) & 7]!;
    if (flags >> 6 !== 1 || blockBytes === 0)
      throw new CompressionError("the LZ4 frame header is not version 1 with a valid block size");
    const blockChecksum = (flags & 0x10) !== 0;
    at += 6 + ((flags & 0x08) !== 0 ? 8 : 0) + ((flags & 0x01) !== 0 ? 4 : 0) + 1;
    for (;;) {
      if (at + 4 > bytes.length) throw new CompressionError("an LZ4 block length is cut short");
      const length = bytes.readUInt32LE(at) & 0x7fffffff;
      at += 4;
      if (length === 0) break;
      at += length + (blockChecksum ? 4 : 0);
      bound += blockBytes;
    }
    if ((flags & 0x04) !== 0) at += 4;
    if (at > bytes.length) throw new CompressionError("the LZ4 frame runs past the records section");
  }
  return bound;
}

const lz4: CompressionCodec = {
  name: "lz4",
  compress: (records) => compressFrameSync(asBuffer(records)),
  decompress(compressed, maxBytes) {
    const bytes = asBuffer(compressed);
    try {
      if (lz4Bound(bytes) > maxBytes) throw tooLarge("lz4", maxBytes);
      return decompressFrameSync(bytes);
    } catch (error) {
      throw corrupt("lz4", error);
    }
  },
};

export const nodeCodecs: readonly CompressionCodec[] = [gzip, snappy, lz4, zstd];

// Installed on import: every Node reader of batches (log store, worker) gets all four.
useCompressionCodecs(nodeCodecs);

/** A records section that would inflate past its bound: refused having inflated `inflatedBytes`, no more. */
export class InflateLimitError extends CompressionError {
  readonly inflatedBytes: number;
  readonly maxBytes: number;

  constructor(name: string, inflatedBytes: number, maxBytes: number) {
    super(`the ${name} records section decompresses to more than ${maxBytes} bytes`);
    this.inflatedBytes = inflatedBytes;
    this.maxBytes = maxBytes;
  }
}

/** Output chunk of the streaming inflaters: what one step may overshoot the bound by. */
export const INFLATE_CHUNK_BYTES = 64 * 1024;

/** Inflates a gzip or zstd section chunk by chunk, stopping (and throwing) as soon as the output passes `maxBytes`. */
function streamInflate(section: Uint8Array, name: "gzip" | "zstd", maxBytes: number): Promise<Buffer> {
  const options = { chunkSize: INFLATE_CHUNK_BYTES };
  const stream = name === "gzip" ? createGunzip(options) : createZstdDecompress(options);
  const parts: Buffer[] = [];
  let total = 0;
  return new Promise((resolve, reject) => {
    stream.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        stream.destroy();
        reject(new InflateLimitError(name, total, maxBytes));
        return;
      }
      parts.push(chunk);
    });
    stream.on("error", (error) => reject(corrupt(name, error)));
    stream.on("end", () => resolve(Buffer.concat(parts, total)));
    stream.end(section);
  });
}

/**
 * The batch at `pos` with its records section inflated, never past `maxBytes` of output: gzip and
 * zstd stream and stop at the bound (Kafka too inflates record by record rather than whole), snappy
 * and lz4 refuse before allocating when the sizes their formats state exceed it. `inflatedBytes`
 * is what was decompressed (0 for a plain batch, returned as a view). Throws InflateLimitError (it
 * carries the bytes inflated before the stop) or CompressionError.
 */
export async function inflateBatchBounded(
  buf: Uint8Array,
  pos: number,
  maxBytes: number,
): Promise<{ batch: Buffer; inflatedBytes: number }> {
  const size = readInt32(buf, pos + OFF_LENGTH) + LOG_OVERHEAD_BYTES;
  const codec = batchCompression(buf, pos);
  if (codec === 0) return { batch: Buffer.from(buf.buffer, buf.byteOffset + pos, size), inflatedBytes: 0 };
  if (pos + size > buf.length) throw new CompressionError(`a compressed batch of ${size} bytes is cut short`);
  const section = buf.subarray(pos + BATCH_HEADER_BYTES, pos + size);
  let records: Uint8Array;
  if (codec === CODEC_IDS.gzip || codec === CODEC_IDS.zstd) {
    records = await streamInflate(section, codec === CODEC_IDS.gzip ? "gzip" : "zstd", maxBytes);
  } else {
    const found = compressionCodec(codec);
    try {
      records = found.decompress(section, maxBytes);
    } catch (error) {
      if (error instanceof CompressionError && error.message.includes("decompresses to more than"))
        throw new InflateLimitError(found.name, 0, maxBytes);
      throw error;
    }
  }
  return { batch: batchWithRecords(buf, pos, records, 0), inflatedBytes: records.length };
}
