/** The parts of a worker's Partition.stats report the topic list adds up (written by apps/worker). */
interface ReportedStats {
  sizeBytes: number;
  dirtyRatio: number;
  lastCleanAt: string | null;
  uncleanable: unknown;
}

function reported(stats: unknown): ReportedStats | null {
  if (typeof stats !== "object" || stats === null) return null;
  const s = stats as Record<string, unknown>;
  if (typeof s.sizeBytes !== "number" || typeof s.dirtyRatio !== "number") return null;
  return {
    sizeBytes: s.sizeBytes,
    dirtyRatio: Number.isFinite(s.dirtyRatio) ? s.dirtyRatio : 0,
    lastCleanAt: typeof s.lastCleanAt === "string" ? s.lastCleanAt : null,
    uncleanable: s.uncleanable ?? null,
  };
}

/** One partition's size as the console shows it (its worker's last report), or null before any. */
export function reportedSizeBytes(stats: unknown): number | null {
  return reported(stats)?.sizeBytes ?? null;
}

export interface TopicUsage {
  reportedPartitions: number;
  sizeBytes: number;
  dirtyBytes: number;
  dirtyRatio: number;
  lastCleanAt: string | null;
  uncleanablePartitions: number;
}

/**
 * A topic's size and dirtiness from its partitions' last worker reports, for the topic list (no
 * data-plane call per topic). Workers report a ratio, not dirty bytes, so dirty bytes are the
 * ratio times the partition size: the active segment, which the ratio leaves out, is counted at
 * the same ratio. The topic's ratio is dirty bytes over size.
 */
export function topicUsage(partitionStats: readonly unknown[]): TopicUsage {
  const reports = partitionStats.map(reported).filter((r): r is ReportedStats => r !== null);
  const sizeBytes = reports.reduce((sum, r) => sum + r.sizeBytes, 0);
  const dirtyBytes = Math.round(reports.reduce((sum, r) => sum + r.dirtyRatio * r.sizeBytes, 0));
  const cleans = reports.map((r) => r.lastCleanAt).filter((at): at is string => at !== null);
  return {
    reportedPartitions: reports.length,
    sizeBytes,
    dirtyBytes,
    dirtyRatio: sizeBytes > 0 ? dirtyBytes / sizeBytes : 0,
    lastCleanAt: cleans.length > 0 ? cleans.sort().at(-1)! : null,
    uncleanablePartitions: reports.filter((r) => r.uncleanable !== null).length,
  };
}
