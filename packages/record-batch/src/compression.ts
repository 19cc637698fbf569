// Kafka's compression codecs of a RecordBatch v2 (attributes bits 0–2): the records section after
// the 61-byte header is compressed whole; the header stays plain. The codecs themselves are
// installed by the process (`useCompressionCodecs`): the Node ones (`./node-codecs`) use zlib and
// native libraries, so this module stays browser-safe and a browser build simply has none.

export type CompressionName = "none" | "gzip" | "snappy" | "lz4" | "zstd";

/** Codec ids as the attributes field carries them. */
export const CODEC_IDS: Readonly<Record<CompressionName, number>> = Object.freeze({
  none: 0,
  gzip: 1,
  snappy: 2,
  lz4: 3,
  zstd: 4,
});

const NAMES: readonly CompressionName[] = ["none", "gzip", "snappy", "lz4", "zstd"];

/** The codec name of attribute bits `id`, or null for an id Kafka does not define (5–7). */
export function compressionName(id: number): CompressionName | null {
  return NAMES[id] ?? null;
}

/**
 * Largest records section a compressed batch may inflate to by default: what one fetch could ever
 * serve whole, far beyond any batch a producer's `max.message.bytes` lets in, and small enough that
 * a hostile "compression bomb" costs no more memory than a legitimate large batch.
 */
export const DEFAULT_MAX_INFLATED_BYTES = 64 << 20;

export interface CompressionCodec {
  readonly name: Exclude<CompressionName, "none">;
  compress(records: Uint8Array): Uint8Array;
  /**
   * The plain records section; throws CompressionError for bytes that do not decompress, or that
   * would decompress to more than `maxBytes` (checked before the output is allocated where the
   * format states sizes up front, else by a bounded decompressor).
   */
  decompress(compressed: Uint8Array, maxBytes: number): Uint8Array;
}

/** A records section that does not compress or decompress with its batch's codec. */
export class CompressionError extends Error {}

const installed: (CompressionCodec | undefined)[] = [];

/** Installs codecs for this process (the log store installs the Node ones once). */
export function useCompressionCodecs(codecs: readonly CompressionCodec[]): void {
  for (const codec of codecs) installed[CODEC_IDS[codec.name]] = codec;
}

/** The installed codec for attribute bits `id`; throws CompressionError naming what is missing. */
export function compressionCodec(id: number): CompressionCodec {
  const codec = installed[id];
  if (codec) return codec;
  const name = compressionName(id);
  throw new CompressionError(
    name === null ? `unknown compression codec ${id}` : `the ${name} codec is not available in this process`,
  );
}
