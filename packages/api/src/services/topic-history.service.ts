import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Identity } from "../auth/request-identity";
import { firstShownMinuteMs, groupLagSeries } from "./group-lag-history";
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
  const shownFromMs = firstShownMinuteMs(deps.clock.now(), input.minutes);
  const since = new Date(shownFromMs - MINUTE_MS);
  const [samples, groups] = await Promise.all([
    deps.prisma.partitionSample.findMany({
      where: { partition: { topicId: topic.id }, at: { gte: since } },
      orderBy: { at: "asc" },
    }),
    groupLagSeries(deps.prisma, identity.tenantId, { sinceMs: shownFromMs, topicId: topic.id }),
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
  return { minutes, groups };
}
