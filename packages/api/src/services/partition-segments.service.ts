import type { DataPlane } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import type { PartitionSegmentsInput, PartitionSegmentsOutput } from "./partition-segments.schema";
import { findPartition } from "./topic.service";

/**
 * One partition's segment layout as its owning worker sees it now (the console's segment bar),
 * with each segment's tier: the worker says which it evicted (remote), and the manifest's segment
 * rows which were uploaded whole (the same offsets as the file), with their object key and size.
 */
export async function listPartitionSegments(
  deps: { prisma: PrismaClient; dataPlane: DataPlane },
  identity: Identity,
  input: PartitionSegmentsInput,
): Promise<PartitionSegmentsOutput> {
  const { partition } = await findPartition(deps.prisma, identity.tenantId, input.topic, input.partition);
  const [layout, objects] = await Promise.all([
    deps.dataPlane.segments({ partitionId: partition.id }),
    deps.prisma.partitionObject.findMany({
      where: { partitionId: partition.id, kind: "segment" },
      select: { baseOffset: true, lastOffset: true, objectKey: true, byteSize: true },
    }),
  ]);
  const objectOf = new Map(objects.map((o) => [`${o.baseOffset}:${o.lastOffset}`, o]));
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
    segments: layout.segments.map((s) => {
      const object = s.active ? undefined : objectOf.get(`${s.baseOffset}:${s.lastOffset}`);
      return {
        baseOffset: s.baseOffset,
        lastOffset: s.lastOffset,
        sizeBytes: s.sizeBytes,
        records: s.records,
        tombstones: s.tombstones,
        firstTimestamp: s.firstTimestamp,
        maxTimestamp: s.maxTimestamp,
        state: s.state,
        tier: s.remote ? ("evicted" as const) : object ? ("uploaded" as const) : ("local" as const),
        object: object ? { key: object.objectKey, sizeBytes: object.byteSize } : null,
      };
    }),
    cleaner: layout.cleaner,
  };
}
