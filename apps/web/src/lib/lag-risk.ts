/**
 * How close a consumer group's lag is to losing tombstones: a group that has not read a tombstone
 * before delete.retention.ms runs out never learns the key was deleted. "danger" from 80 %.
 */
export type LagRisk = "ok" | "warning" | "danger";

export function lagRisk(maxLagMs: number, deleteRetentionMs: number): LagRisk {
  if (deleteRetentionMs <= 0) return maxLagMs > 0 ? "danger" : "ok";
  const share = maxLagMs / deleteRetentionMs;
  if (share >= 0.8) return "danger";
  if (share >= 0.5) return "warning";
  return "ok";
}
