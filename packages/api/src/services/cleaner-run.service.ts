import type { PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import { findTopic } from "./topic.service";

/** The latest compaction passes over a topic's partitions, newest first (rows written by workers). */
export async function listCleanerRuns(
  deps: { prisma: PrismaClient },
  identity: Identity,
  input: { topic: string; limit: number },
) {
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const runs = await deps.prisma.cleanerRun.findMany({
    where: { partition: { topicId: topic.id } },
    include: { partition: { select: { index: true } } },
    orderBy: { startedAt: "desc" },
    take: input.limit,
  });
  return {
    runs: runs.map((r) => ({
      id: r.id,
      partition: r.partition.index,
      status: r.status,
      startedAt: r.startedAt.toISOString(),
      finishedAt: r.finishedAt?.toISOString() ?? null,
      bytesRead: Number(r.bytesRead),
      bytesWritten: Number(r.bytesWritten),
      recordsRemoved: r.recordsRemoved,
      tombstonesRemoved: r.tombstonesRemoved,
      mapUtilisation: r.mapUtilisation,
      durationMs: r.durationMs,
      error: r.error,
    })),
  };
}
