import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Identity } from "../auth/request-identity";
import { findTopic } from "./topic.service";
import { topicMinutes } from "./topic-history";

const MINUTE_MS = 60_000;

/**
 * A topic's last `minutes` of per-minute samples (written by the partitions' owners): size and live
 * bytes, records produced, and every consumer group's lag on it, all the tenant's own.
 */
export async function topicHistory(
  deps: { prisma: PrismaClient; clock: Clock },
  identity: Identity,
  input: { topic: string; minutes: number },
) {
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  // The current minute and the `minutes - 1` before it, read from one minute earlier so that the
  // first shown minute has a produce rate.
  const shownFromMs = Math.floor(deps.clock.now() / MINUTE_MS) * MINUTE_MS - (input.minutes - 1) * MINUTE_MS;
  const since = new Date(shownFromMs - MINUTE_MS);
  const [samples, lags] = await Promise.all([
    deps.prisma.partitionSample.findMany({
      where: { partition: { topicId: topic.id }, at: { gte: since } },
      orderBy: { at: "asc" },
    }),
    deps.prisma.groupLagSample.groupBy({
      by: ["groupId", "at"],
      where: { topicId: topic.id, at: { gte: since }, group: { organizationId: identity.tenantId } },
      _sum: { lag: true },
      orderBy: { at: "asc" },
    }),
  ]);
  const minutes = topicMinutes(
    samples.map((s) => ({
      partitionId: s.partitionId,
      atMs: s.at.getTime(),
      sizeBytes: Number(s.sizeBytes),
      dirtyBytes: Number(s.dirtyBytes),
      logEndOffset: Number(s.logEndOffset),
      fetchedRecords: Number(s.fetchedRecords),
    })),
  ).filter((minute) => Date.parse(minute.at) >= shownFromMs);
  const groupIds = [...new Set(lags.map((l) => l.groupId))];
  const names = new Map(
    (
      await deps.prisma.consumerGroup.findMany({
        where: { id: { in: groupIds }, organizationId: identity.tenantId },
        select: { id: true, name: true },
      })
    ).map((g) => [g.id, g.name]),
  );
  const groups = groupIds
    .filter((id) => names.has(id))
    .map((id) => ({
      group: names.get(id) ?? id,
      lag: lags
        .filter((l) => l.groupId === id && l.at.getTime() >= shownFromMs)
        .map((l) => ({ at: l.at.toISOString(), records: Number(l._sum.lag ?? 0) })),
    }))
    .sort((a, b) => a.group.localeCompare(b.group));
  return { minutes, groups };
}
