import { gzipSync, zstdCompressSync } from "node:zlib";
import { compressFrameSync } from "lz4-napi";
import { compressSync as snappyRaw } from "snappy";
import { describe, expect, it } from "vitest";
import { CODEC_IDS, CompressionError, type CompressionName, compressionCodec } from "../src/compression";
import { INFLATE_CHUNK_BYTES, InflateLimitError, inflateBatchBounded } from "../src/node-codecs";
import {
  BATCH_HEADER_BYTES,
  batchCompression,
  batchCrcMatches,
  batchHeaderDefect,
  countTombstones,
  decodeBatch,
  decodeBatchRecords,
  encodeRecordBatch,
  inflateBatch,
  inflateBatches,
  type LogRecord,
  OFF_ATTRIBUTES,
  rebuildBatch,
} from "../src/record-batch";

const CODECS: Exclude<CompressionName, "none">[] = ["gzip", "snappy", "lz4", "zstd"];

function records(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`key-${i % 7}`),
    value: i % 5 === 4 ? null : Buffer.from(`value-${i}-`.repeat(20)),
    timestamp: 1_000 + i,
    headers: i % 3 === 0 ? [{ key: "h", value: Buffer.from(`x${i}`) }] : [],
  }));
}

function text(records: readonly LogRecord[]) {
  return records.map((r) => [r.offset, r.timestamp, r.key?.toString(), r.value?.toString() ?? null]);
}

/** A batch whose records section is `section` under codec `codec`, header from a plain encode. */
function withSection(plain: Buffer, section: Uint8Array, codec: number): Buffer {
  const out = Buffer.concat([plain.subarray(0, BATCH_HEADER_BYTES), section]);
  out.writeInt32BE(out.length - 12, 8);
  out.writeInt16BE(out.readInt16BE(OFF_ATTRIBUTES) | codec, OFF_ATTRIBUTES);
  return out;
}

describe.each(CODECS)("%s batches", (name) => {
  const codec = CODEC_IDS[name];
  const input = records(200);
  const plain = encodeRecordBatch(input, { baseOffset: 40, appendTimeMs: 5 });
  const batch = encodeRecordBatch(input, { baseOffset: 40, appendTimeMs: 5, compression: codec });

  it("round-trips: the header names the codec, the CRC covers the compressed bytes, records decode", () => {
    expect(batchCompression(batch, 0)).toBe(codec);
    expect(batch.length).toBeLessThan(plain.length);
    expect(batchCrcMatches(batch, 0, batch.length)).toBe(true);
    expect(batchHeaderDefect(batch, 0)).toBeNull();
    const decoded = decodeBatch(batch);
    expect(decoded.header.recordCount).toBe(200);
    expect(text(decoded.records)).toEqual(text(decodeBatch(plain).records));
    expect(decoded.records[0]!.headers).toEqual([{ key: "h", value: Buffer.from("x0") }]);
    const out: LogRecord[] = [];
    expect(decodeBatchRecords(batch, 0, out, 230, 5)).toBe(5);
    expect(out.map((r) => r.offset)).toEqual([230, 231, 232, 233, 234]);
    expect(countTombstones(batch, 0)).toBe(countTombstones(plain, 0));
  });

  it("inflates to the plain batch byte for byte, and a rebuild keeps the codec", () => {
    expect(inflateBatch(batch, 0).equals(plain)).toBe(true);
    expect(
      Buffer.from(inflateBatches(Buffer.concat([plain, batch]))).equals(Buffer.concat([plain, plain])),
    ).toBe(true);
    const { header, records: all } = decodeBatch(batch);
    const rebuilt = rebuildBatch(header, all.slice(150));
    expect(batchCompression(rebuilt, 0)).toBe(codec);
    expect(batchCrcMatches(rebuilt, 0, rebuilt.length)).toBe(true);
    expect(decodeBatch(rebuilt).records.map((r) => r.offset)).toEqual(all.slice(150).map((r) => r.offset));
    expect(decodeBatch(rebuilt).header.lastOffset).toBe(239);
  });

  it("refuses a corrupt records section with a CompressionError naming the codec", () => {
    const garbage = withSection(plain, Buffer.from("definitely not compressed at all".repeat(4)), codec);
    expect(() => decodeBatch(garbage)).toThrow(CompressionError);
    expect(() => decodeBatch(garbage)).toThrow(new RegExp(name));
    const cut = withSection(plain, batch.subarray(BATCH_HEADER_BYTES, batch.length - 9), codec);
    expect(() => inflateBatch(cut, 0)).toThrow(CompressionError);
  });

  it("stops at the size cap instead of allocating what a bomb asks for", () => {
    const bomb = compressionCodec(codec).compress(Buffer.alloc(8 << 20));
    expect(bomb.length).toBeLessThan(1 << 20);
    expect(() => compressionCodec(codec).decompress(bomb, 1 << 20)).toThrow(/more than 1048576 bytes/);
    expect(compressionCodec(codec).decompress(bomb, 8 << 20).length).toBe(8 << 20);
  });
});

describe("bounded streaming inflation (inflateBatchBounded)", () => {
  // The reported bomb: 900 records of 64 KiB of zeros, 56 MiB inflated, a few KiB sent.
  const zeros = Array.from({ length: 900 }, (_, i) => ({
    key: Buffer.from(`k${i}`),
    value: Buffer.alloc(64 << 10),
    timestamp: 1,
    headers: [],
  }));

  it.each(["gzip", "zstd"] as const)(
    "stops a %s bomb at the bound, having inflated no more than the bound and one chunk",
    async (name) => {
      const bomb = encodeRecordBatch(zeros, { baseOffset: 0, appendTimeMs: 1, compression: CODEC_IDS[name] });
      expect(bomb.length).toBeLessThan(1 << 20);
      const bound = 1 << 20;
      const refusal = await inflateBatchBounded(bomb, 0, bound).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(InflateLimitError);
      const { inflatedBytes } = refusal as InflateLimitError;
      expect(inflatedBytes).toBeGreaterThan(bound);
      expect(inflatedBytes).toBeLessThanOrEqual(bound + INFLATE_CHUNK_BYTES);
    },
  );

  it.each(["snappy", "lz4"] as const)(
    "refuses a %s bomb from the sizes it states, inflating nothing",
    async (name) => {
      const bomb = encodeRecordBatch(zeros, { baseOffset: 0, appendTimeMs: 1, compression: CODEC_IDS[name] });
      const refusal = await inflateBatchBounded(bomb, 0, 1 << 20).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(InflateLimitError);
      expect((refusal as InflateLimitError).inflatedBytes).toBe(0);
    },
  );

  it.each(CODECS)("within the bound, a %s batch inflates to what inflateBatch makes of it", async (name) => {
    const input = records(300);
    const batch = encodeRecordBatch(input, { baseOffset: 7, appendTimeMs: 5, compression: CODEC_IDS[name] });
    const { batch: plain, inflatedBytes } = await inflateBatchBounded(batch, 0, 1 << 20);
    expect(plain.equals(inflateBatch(batch, 0))).toBe(true);
    expect(inflatedBytes).toBe(plain.length - BATCH_HEADER_BYTES);
  });

  it("refuses a corrupt gzip or zstd section as a CompressionError that is not a limit", async () => {
    const plain = encodeRecordBatch(records(3), { baseOffset: 0, appendTimeMs: 1 });
    for (const name of ["gzip", "zstd"] as const) {
      const garbage = withSection(plain, Buffer.from("not compressed".repeat(8)), CODEC_IDS[name]);
      const error = await inflateBatchBounded(garbage, 0, 1 << 20).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CompressionError);
      expect(error).not.toBeInstanceOf(InflateLimitError);
    }
  });
});

describe("what other clients write", () => {
  const input = records(50);
  const plain = encodeRecordBatch(input, { baseOffset: 0, appendTimeMs: 1 });
  const section = plain.subarray(BATCH_HEADER_BYTES);
  const expected = text(decodeBatch(plain).records);

  it("reads snappy as one raw block (librdkafka, kafkajs) and in snappy-java's framing (the Java client)", () => {
    expect(text(decodeBatch(withSection(plain, snappyRaw(section), 2)).records)).toEqual(expected);
    const framed = compressionCodec(2).compress(section);
    expect(framed.subarray(0, 8)).toEqual(Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0]));
    expect(text(decodeBatch(withSection(plain, framed, 2)).records)).toEqual(expected);
  });

  it("reads gzip, zstd and LZ4 frames written by other encoders", () => {
    expect(text(decodeBatch(withSection(plain, gzipSync(section), 1)).records)).toEqual(expected);
    expect(text(decodeBatch(withSection(plain, zstdCompressSync(section), 4)).records)).toEqual(expected);
    expect(text(decodeBatch(withSection(plain, compressFrameSync(section), 3)).records)).toEqual(expected);
  });

  it("checks a raw snappy block's stated length against the cap before decompressing", () => {
    // A preamble claiming 100 MiB, followed by nothing that could produce it.
    const claim = Buffer.from([0x80, 0x80, 0x80, 0x32, 0x00]);
    expect(() => compressionCodec(2).decompress(claim, 1 << 20)).toThrow(/more than 1048576 bytes/);
  });

  it("refuses codec ids Kafka does not define", () => {
    const odd = Buffer.from(plain);
    odd.writeInt16BE(odd.readInt16BE(OFF_ATTRIBUTES) | 5, OFF_ATTRIBUTES);
    expect(batchHeaderDefect(odd, 0)).toBe("unknown compression codec 5");
    expect(() => compressionCodec(5)).toThrow("unknown compression codec 5");
  });
});
