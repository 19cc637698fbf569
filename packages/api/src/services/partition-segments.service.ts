import type { DataPlane } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import type { PartitionSegmentsInput, PartitionSegmentsOutput } from "./partition-segments.schema";
import { findPartition } from "./topic.service";

/** One partition's segment layout as its owning worker sees it now (the console's segment bar). */
export async function listPartitionSegments(
  deps: { prisma: PrismaClient; dataPlane: DataPlane },
  identity: Identity,
  input: PartitionSegmentsInput,
): Promise<PartitionSegmentsOutput> {
  const { partition } = await findPartition(deps.prisma, identity.tenantId, input.topic, input.partition);
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
      tombstones: s.tombstones,
      firstTimestamp: s.firstTimestamp,
      maxTimestamp: s.maxTimestamp,
      state: s.state,
    })),
    cleaner: layout.cleaner,
  };
}
