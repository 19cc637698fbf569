/**
 * Why a compacted topic's partition count is frozen: the sentence the API's PARTITIONS_FROZEN
 * refusal carries and the console shows beside its disabled button, so both say the same thing.
 */
export const PARTITIONS_FROZEN_EXPLANATION =
  "Keys are placed by hash modulo the partition count, so more partitions would send existing keys to partitions that hold neither their history nor their tombstones: compaction could no longer keep one latest value per key, and readers rebuilding state would see stale values. Create a new topic with the partition count you need and replay this one into it instead.";
