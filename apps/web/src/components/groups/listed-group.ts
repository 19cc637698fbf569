import type { AppRouter } from "@lastword/api";
import type { inferRouterOutputs } from "@trpc/server";
import { type LagRisk, lagRisk } from "@/lib/lag-risk";

/** One group as consumerGroups.list answers it. */
export type ListedGroup = inferRouterOutputs<AppRouter>["consumerGroups"]["list"]["groups"][number];

const RISK_ORDER: readonly LagRisk[] = ["ok", "warning", "near", "past"];

/** The group's worst tombstone risk over its topics (each against its own delete.retention.ms). */
export function worstRisk(group: ListedGroup): LagRisk {
  let worst: LagRisk = "ok";
  for (const t of group.topics) {
    const maxLagMs = t.partitions.reduce((n, p) => Math.max(n, p.lagMs ?? 0), 0);
    const risk = lagRisk(maxLagMs, t.deleteRetentionMs);
    if (RISK_ORDER.indexOf(risk) > RISK_ORDER.indexOf(worst)) worst = risk;
  }
  return worst;
}

/** Who holds the group, in a sentence. */
export function coordination(group: ListedGroup): string {
  if (!group.coordinator) return "REST consumer (offsets committed over HTTP)";
  return group.coordinator.live
    ? `Kafka group, coordinated by worker ${group.coordinator.workerId}`
    : "Kafka group, no consumer connected (no worker coordinates it until one joins)";
}

/** A group's own page. */
export function groupHref(group: string): string {
  return `/consumer-groups/${encodeURIComponent(group)}`;
}
