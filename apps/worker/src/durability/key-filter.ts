import { batchField, decodeBatch } from "@lastword/record-batch";
import bloomFilters from "bloom-filters";

const { BloomFilter } = bloomFilters;

/**
 * One key in a hundred that a segment does not hold is taken for one it might: an erasure then
 * reads that segment for nothing. Costs ~1.2 bytes per distinct key beside the segment.
 */
const FALSE_POSITIVE_RATE = 0.01;

/**
 * A segment's key filter (a Bloom filter of every record key in the segment's stored batches, any
 * codec), as the bytes kept beside its object: an erasure or a tombstone rewrites, and a
 * verification reads, only the segments whose filter may hold the key.
 */
export function buildKeyFilter(segment: Buffer): Buffer {
  const keys = new Set<string>();
  for (let pos = 0; pos < segment.length; pos += batchField.sizeBytes(segment, pos)) {
    for (const record of decodeBatch(segment, pos).records) {
      if (record.key !== null) keys.add(record.key.toString("base64"));
    }
  }
  const filter = BloomFilter.create(Math.max(1, keys.size), FALSE_POSITIVE_RATE);
  for (const key of keys) filter.add(key);
  return Buffer.from(JSON.stringify(filter.saveAsJSON()));
}

/** Whether the segment behind `filter` may hold a record of `key` (false: it certainly does not). */
export function mayHoldKey(filter: Buffer, key: Buffer): boolean {
  return BloomFilter.fromJSON(JSON.parse(filter.toString())).has(key.toString("base64"));
}
