import type { PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import type {
  PartitionSegmentsInput,
  PartitionSegmentsOutput,
} from "../procedures/topics/partition-segments.schema";
import type { DataPlane, DataPlaneSegment } from "../records/data-plane";
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
