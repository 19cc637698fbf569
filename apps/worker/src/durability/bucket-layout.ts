import { randomUUID } from "node:crypto";

// The bucket layout: every object the worker writes to object storage, and how it is named.
//   commit/<workerId>/<time>-<uuid>                         one commit window's batches, shared by
//                                                           the partitions it carried (commit-window.ts)
//   segments/<partitionId>/<time>-<base>-<epoch>-<uuid>     one closed segment, byte for byte
//   tails/<partitionId>/<time>-<base>-<epoch>-<uuid>        a partition's consolidated commit rows
// beside a segment object, sidecars named by suffix:
//   <segment key>.snapshot   the producer-state snapshot at the segment's end (when the log kept one)
//   <segment key>.keys       the segment's key filter (key-filter.ts)
//   <segment key>.index      the partition's key index as it stood when the segment was uploaded
//                            (hosting/key-index-snapshot.ts): a new owner starts from the newest
//                            row's instead of reading every segment (durable-partitions.ts)
// The time (base 36, nine digits, the writer's clock) comes right after the owner so a listing of
// one owner's objects runs oldest first and the orphan sweeper can age an object by its key alone.

export const COMMIT_PREFIX = "commit/";
export const SEGMENT_PREFIX = "segments/";
export const TAIL_PREFIX = "tails/";
export const SNAPSHOT_SUFFIX = ".snapshot";
export const KEY_FILTER_SUFFIX = ".keys";
export const KEY_INDEX_SUFFIX = ".index";
/** Every sidecar a segment object may have. */
export const SEGMENT_SIDECAR_SUFFIXES = [SNAPSHOT_SUFFIX, KEY_FILTER_SUFFIX, KEY_INDEX_SUFFIX] as const;

function keyTime(now: number): string {
  return now.toString(36).padStart(9, "0");
}

/** A commit object: the writer and a unique id (the partitions' epochs are in their manifest rows). */
export function commitObjectKey(workerId: string, now = Date.now()): string {
  return `${COMMIT_PREFIX}${workerId}/${keyTime(now)}-${randomUUID()}`;
}

/** A partition's object of one kind (`prefix`): named by the partition, time, base offset and epoch. */
function partitionObjectKeys(prefix: string) {
  return (partitionId: string, baseOffset: number, epoch: number, now = Date.now()): string =>
    `${prefix}${partitionId}/${keyTime(now)}-${baseOffset}-${epoch}-${randomUUID()}`;
}

export const segmentObjectKey = partitionObjectKeys(SEGMENT_PREFIX);
export const tailObjectKey = partitionObjectKeys(TAIL_PREFIX);

/** When a commit object was written (its writer's clock), from its key; null for a key not of that form. */
export function commitObjectTime(key: string): number | null {
  const match = /^commit\/[^/]+\/([0-9a-z]{9})-[0-9a-f-]{36}$/.exec(key);
  return match ? Number.parseInt(match[1]!, 36) : null;
}

/** When a partition object was written (its writer's clock), from its key; null for another key. */
export function partitionObjectTime(key: string): number | null {
  const match =
    /^(?:segments|tails)\/[^/]+\/([0-9a-z]{9})-\d+-\d+-[0-9a-f-]{36}(?:\.snapshot|\.keys|\.index)?$/.exec(
      key,
    );
  return match ? Number.parseInt(match[1]!, 36) : null;
}

/** The main object a sidecar belongs to (the key itself for a main object). */
export function mainObjectKey(key: string): string {
  for (const suffix of SEGMENT_SIDECAR_SUFFIXES)
    if (key.endsWith(suffix)) return key.slice(0, -suffix.length);
  return key;
}
