import {
  batchCompression,
  batchField,
  compressBatch,
  inflateBatch,
  rebuiltBatchBound,
} from "@lastword/record-batch";
import { type FilterCounters, type FilteredBatch, filterBatch, type RetainRule } from "./cleaner-batch";

// The cleaner's filter for a batch whose records section is compressed: Kafka's cleaner reads such
// a batch record by record and rewrites what survives compressed with the batch's own codec. Here
// the section is inflated into a plain batch, filtered by the plain filter (the same retain rule,
// counters and tombstone audit), and its output compressed again. A batch that keeps every record
// is copied as stored, compressed bytes and all; one left empty keeps a plain header (nothing to
// compress).

export interface FilteredCompressedBatch extends FilteredBatch {
  /** The batch to write (`bytes` long): a view of the source when unchanged, else fresh. */
  batch: Buffer;
}

const EMPTY = Buffer.alloc(0);

/** Filters the compressed batch at `src[pos]` (validated, CRC-checked). */
export function filterCompressedBatch(
  src: Buffer,
  pos: number,
  rule: RetainRule,
  counters: FilterCounters,
): FilteredCompressedBatch {
  const size = batchField.sizeBytes(src, pos);
  const plain = inflateBatch(src, pos);
  const out = Buffer.allocUnsafe(rebuiltBatchBound(plain.length, batchField.recordCount(plain, 0)));
  const { bytes, maxTimestamp, changed } = filterBatch(plain, 0, out, 0, rule, counters);
  if (!changed) return { bytes: size, maxTimestamp, changed, batch: src.subarray(pos, pos + size) };
  if (bytes === 0) return { bytes, maxTimestamp, changed, batch: EMPTY };
  const written = out.subarray(0, bytes);
  const batch =
    batchField.recordCount(written, 0) === 0 ? written : compressBatch(written, batchCompression(src, pos));
  return { bytes: batch.length, maxTimestamp, changed, batch };
}
