/**
 * How close a consumer group's lag is to losing tombstones: a group that has not read a tombstone
 * before delete.retention.ms runs out never learns the key was deleted. "near" from 80 %, "past"
 * once the lag is longer than delete.retention.ms: it may already have missed deletes.
 */
export type LagRisk = "ok" | "warning" | "near" | "past";

export function lagRisk(maxLagMs: number, deleteRetentionMs: number): LagRisk {
  if (maxLagMs <= 0) return "ok";
  if (maxLagMs > deleteRetentionMs) return "past";
  const share = maxLagMs / deleteRetentionMs;
  if (share >= 0.8) return "near";
  if (share >= 0.5) return "warning";
  return "ok";
}

/** The badge a risk gets, or none. */
export function lagRiskLabel(risk: LagRisk): string | null {
  if (risk === "past") return "Past tombstone expiry: may have missed deletes";
  if (risk === "near") return "Near tombstone expiry";
  return null;
}
