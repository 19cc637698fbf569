/** A snapshot of how partitions are spread, as one worker sees it. */
export interface LoadSnapshot {
  totalPartitions: number;
  liveWorkers: number;
  ownedByMe: number;
}

/**
 * How many fresh partitions this worker may claim now. Each live worker takes at most its fair share
 * (⌈total / live⌉), so new partitions land on the least-loaded workers while busier ones stand back.
 * Partitions left unclaimed for longer than a grace period are claimed regardless (see ownership.ts),
 * so a miscounted worker (one that died but still looks live) never strands a partition.
 */
export function freshClaimQuota(load: LoadSnapshot, maxPerTick: number): number {
  const live = Math.max(1, load.liveWorkers);
  const fairShare = Math.ceil(load.totalPartitions / live);
  return Math.max(0, Math.min(maxPerTick, fairShare - load.ownedByMe));
}
