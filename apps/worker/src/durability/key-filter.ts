import {
  batchCompression,
  batchField,
  inflateBatch,
  LOG_OVERHEAD_BYTES,
  RecordBatchWalk,
} from "@lastword/record-batch";
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
  const keys = new KeyFilterBuilder();
  keys.push(segment);
  return keys.finish();
}

/**
 * `buildKeyFilter` over a segment given in chunks as it is read (cut anywhere): only the batch
 * being completed is held besides the distinct keys, so a segment of any size is filtered in the
 * memory of its largest batch.
 */
export class KeyFilterBuilder {
  readonly #keys = new Set<string>();
  readonly #walk = new RecordBatchWalk();
  /** Bytes received and not yet walked (the start of the next batch), as received. */
  #chunks: Buffer[] = [];
  #held = 0;

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#held += chunk.length;
    for (;;) {
      // A batch's size is in its first 12 bytes (base offset, length).
      if (this.#held < LOG_OVERHEAD_BYTES) return;
      let head = this.#chunks[0]!;
      if (head.length < LOG_OVERHEAD_BYTES) head = this.#join();
      const size = batchField.sizeBytes(head, 0);
      if (this.#held < size) return;
      if (head.length < size) head = this.#join();
      this.#addBatch(head.subarray(0, size));
      const rest = head.subarray(size);
      this.#chunks.shift();
      if (rest.length > 0) this.#chunks.unshift(rest);
      this.#held -= size;
    }
  }

  finish(): Buffer {
    if (this.#held > 0) throw new Error(`segment ends inside a batch (${this.#held} trailing bytes)`);
    const filter = BloomFilter.create(Math.max(1, this.#keys.size), FALSE_POSITIVE_RATE);
    for (const key of this.#keys) filter.add(key);
    return Buffer.from(JSON.stringify(filter.saveAsJSON()));
  }

  /** The held chunks as one, once a batch spans several (only then is anything copied). */
  #join(): Buffer {
    const joined = Buffer.concat(this.#chunks);
    this.#chunks = [joined];
    return joined;
  }

  // Keys read in place (nothing allocated per record but the key's text); a compressed batch is
  // inflated first, under the bound every reader of stored batches inflates with.
  #addBatch(stored: Buffer): void {
    const batch = batchCompression(stored, 0) === 0 ? stored : inflateBatch(stored, 0);
    const walk = this.#walk;
    walk.reset(batch, 0, batch.length);
    while (walk.nextBatch()) {
      while (walk.nextRecord()) {
        if (walk.keyStart >= 0) this.#keys.add(batch.toString("base64", walk.keyStart, walk.keyEnd));
      }
    }
  }
}

/** Whether the segment behind `filter` may hold a record of `key` (false: it certainly does not). */
export function mayHoldKey(filter: Buffer, key: Buffer): boolean {
  return BloomFilter.fromJSON(JSON.parse(filter.toString())).has(key.toString("base64"));
}
