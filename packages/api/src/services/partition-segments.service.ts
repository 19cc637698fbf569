import type { PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import type {
  PartitionSegmentsInput,
  PartitionSegmentsOutput,
} from "../procedures/topics/partition-segments.schema";
import type { DataPlane, DataPlaneSegment } from "../records/data-plane";
import { findTopic } from "./topic.service";

/** One partition's segment layout as its owning worker sees it now (the console's segment bar). */
export async function listPartitionSegments(
  deps: { prisma: PrismaClient; dataPlane: DataPlane },
  identity: Identity,
  input: PartitionSegmentsInput,
): Promise<PartitionSegmentsOutput> {
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const partition = await deps.prisma.partition.findUnique({
    where: { topicId_index: { topicId: topic.id, index: input.partition } },
  });
  if (!partition) {
    throw new AppError(
      "PARTITION_NOT_FOUND",
      `Topic "${input.topic}" has no partition ${input.partition} (it has ${topic.partitionCount}).`,
      { details: { partition: input.partition } },
    );
  }
  const layout = await deps.dataPlane.segments({ partitionId: partition.id });
  return {
    partition: input.partition,
    logStartOffset: layout.logStartOffset,
    logEndOffset: layout.logEndOffset,
    segments: layout.segments.map((s) => ({
      baseOffset: s.baseOffset,
      lastOffset: s.lastOffset,
      sizeBytes: s.sizeBytes,
      records: s.records,
      firstTimestamp: s.firstTimestamp,
      maxTimestamp: s.maxTimestamp,
      state: segmentState(s),
    })),
    cleaner: layout.cleaner,
  };
}

// The worker names the state; an older worker that does not is read from `active` alone.
function segmentState(s: DataPlaneSegment): "clean" | "dirty" | "active" {
  if (s.state === "clean" || s.state === "dirty" || s.state === "active") return s.state;
  return s.active ? "active" : "dirty";
}
