import { cleanerRunFigures, type PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import { findTopic } from "./topic.service";

/**
 * The latest compaction passes over a topic's partitions (or one of them), newest first (rows
 * written by workers). Each carries the dirty ratio before and after it, so the passes are also
 * the partition's dirty-ratio history: no separate stats table.
 */
export async function listCleanerRuns(
  deps: { prisma: PrismaClient },
  identity: Identity,
  input: { topic: string; limit: number; partition?: number | undefined },
) {
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const runs = await deps.prisma.cleanerRun.findMany({
    where: {
      partition: { topicId: topic.id, ...(input.partition === undefined ? {} : { index: input.partition }) },
    },
    include: { partition: { select: { index: true } } },
    orderBy: { startedAt: "desc" },
    take: input.limit,
  });
  return {
    runs: runs.map((r) => ({
      id: r.id,
      partition: r.partition.index,
      ...cleanerRunFigures(r),
      // The sizes reclaimedBytes is the difference of, as the segment bars count them (log files).
      bytesBefore: r.bytesBefore === null ? null : Number(r.bytesBefore),
      bytesAfter: r.bytesAfter === null ? null : Number(r.bytesAfter),
      mapUtilisation: r.mapUtilisation,
      durationMs: r.durationMs,
      error: r.error,
      dirtyRatioBefore: r.dirtyRatioBefore,
      dirtyRatioAfter: r.dirtyRatioAfter,
    })),
  };
}
