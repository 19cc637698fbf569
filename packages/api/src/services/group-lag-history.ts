import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Identity } from "../auth/request-identity";

/** One group's lag (records behind the end, summed over the partitions it committed on) per minute, oldest first. */
export interface GroupLagSeries {
  group: string;
  lag: { at: string; records: number }[];
}

/**
 * The tenant's groups' lag per minute since `sinceMs`, from the samples the partitions' owners write
 * (GroupLagSample): on one topic when `topicId` is given, over every topic otherwise. Sorted by
 * group name; a group with no sample in the window is absent.
 */
export async function groupLagSeries(
  prisma: PrismaClient,
  tenantId: string,
  window: { sinceMs: number; topicId?: string },
): Promise<GroupLagSeries[]> {
  const lags = await prisma.groupLagSample.groupBy({
    by: ["groupId", "at"],
    where: {
      ...(window.topicId ? { topicId: window.topicId } : {}),
      at: { gte: new Date(window.sinceMs) },
      group: { organizationId: tenantId },
    },
    _sum: { lag: true },
    orderBy: { at: "asc" },
  });
  const byGroup = new Map<string, { at: string; records: number }[]>();
  for (const l of lags) {
    const series = byGroup.get(l.groupId) ?? [];
    series.push({ at: l.at.toISOString(), records: Number(l._sum.lag ?? 0) });
    byGroup.set(l.groupId, series);
  }
  const names = await prisma.consumerGroup.findMany({
    where: { id: { in: [...byGroup.keys()] }, organizationId: tenantId },
    select: { id: true, name: true },
  });
  return names
    .map((g) => ({ group: g.name, lag: byGroup.get(g.id) ?? [] }))
    .sort((a, b) => a.group.localeCompare(b.group));
}

const MINUTE_MS = 60_000;

/** The first of the last `minutes` minutes, the current one included, as the history charts show them. */
export function firstShownMinuteMs(nowMs: number, minutes: number): number {
  return Math.floor(nowMs / MINUTE_MS) * MINUTE_MS - (minutes - 1) * MINUTE_MS;
}

/** Every group of the tenant: its lag over the last `minutes`. */
export async function groupLagHistory(
  deps: { prisma: PrismaClient; clock: Clock },
  identity: Identity,
  input: { minutes: number },
) {
  const sinceMs = firstShownMinuteMs(deps.clock.now(), input.minutes);
  return { groups: await groupLagSeries(deps.prisma, identity.tenantId, { sinceMs }) };
}
