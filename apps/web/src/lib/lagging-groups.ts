/** The part of `consumerGroups.list` a lag check reads. */
export interface GroupLag {
  group: string;
  topics: readonly {
    topic: string;
    deleteRetentionMs: number;
    partitions: readonly { lagMs: number | null }[];
  }[];
}

export interface LaggingGroup {
  group: string;
  topic: string;
  lagMs: number;
  deleteRetentionMs: number;
}

/**
 * Per group and topic, the groups whose oldest unread record is older than the topic's
 * delete.retention.ms (lag-risk.ts's "past": they may have missed tombstones), longest first.
 */
export function laggingPastRetention(groups: readonly GroupLag[]): LaggingGroup[] {
  return groups
    .flatMap((g) =>
      g.topics.map((t) => ({
        group: g.group,
        topic: t.topic,
        lagMs: Math.max(0, ...t.partitions.map((p) => p.lagMs ?? 0)),
        deleteRetentionMs: t.deleteRetentionMs,
      })),
    )
    .filter((lag) => lag.lagMs > lag.deleteRetentionMs)
    .sort((a, b) => b.lagMs - a.lagMs || a.group.localeCompare(b.group));
}
