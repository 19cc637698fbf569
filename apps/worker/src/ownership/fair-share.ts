/** A snapshot of how partitions are spread, as one worker sees it. */
export interface LoadSnapshot {
  totalPartitions: number;
  liveWorkers: number;
  ownedByMe: number;
}

/**
 * How many fresh partitions this worker may claim now. Each live worker takes at most its fair share
 * (⌈total / live⌉), so new partitions land on the least-loaded workers while busier ones stand back.
 * Partitions left unclaimed for longer than a grace period are claimed regardless (see hosting/ownership-loop.ts),
 * so a miscounted worker (one that died but still looks live) never strands a partition.
 */
export function freshClaimQuota(load: LoadSnapshot, maxPerTick: number): number {
  const live = Math.max(1, load.liveWorkers);
  const fairShare = Math.ceil(load.totalPartitions / live);
  return Math.max(0, Math.min(maxPerTick, fairShare - load.ownedByMe));
}

/**
 * Whether this worker should hand one partition back so a less-loaded worker (typically one that just
 * joined) can take it: only when nothing is waiting to be claimed, this worker holds more than its fair
 * share, and some live worker holds at least two fewer (so a move narrows the gap instead of flipping it).
 */
export function shouldShed(
  load: LoadSnapshot & { claimable: number; minOwnedByLiveWorker: number },
): boolean {
  if (load.claimable > 0) return false;
  const fairShare = Math.ceil(load.totalPartitions / Math.max(1, load.liveWorkers));
  return load.ownedByMe > fairShare && load.ownedByMe - load.minOwnedByLiveWorker >= 2;
}
