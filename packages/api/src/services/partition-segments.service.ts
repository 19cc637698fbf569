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
  // Which transactional id each open transaction's producer is, and when it began: the tenant's
  // coordinator rows (a producer id is one tenant's).
  const producerIds = layout.openTransactions.map((t) => BigInt(t.producerId));
  const owners =
    producerIds.length === 0
      ? []
      : await deps.prisma.kafkaTransaction.findMany({
          where: { organizationId: identity.tenantId, producerId: { in: producerIds } },
          select: { producerId: true, transactionalId: true, startedAt: true },
        });
  const byProducer = new Map(owners.map((o) => [Number(o.producerId), o]));
  return {
    partition: input.partition,
    logStartOffset: layout.logStartOffset,
    logEndOffset: layout.logEndOffset,
    lastStableOffset: layout.lastStableOffset,
    openTransactions: layout.openTransactions.map((t) => ({
      ...t,
      transactionalId: byProducer.get(t.producerId)?.transactionalId ?? null,
      startedAt: byProducer.get(t.producerId)?.startedAt?.toISOString() ?? null,
    })),
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
