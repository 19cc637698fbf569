import type { DataPlane } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Identity } from "../auth/request-identity";
import type { ListOffsetsInput } from "./list-offsets.schema";
import { routedPartition } from "./topic.service";

/** Where a read can start: log start and end, and the offset a timestamp maps to (the time index). */
export async function listPartitionOffsets(
  deps: { prisma: PrismaClient; dataPlane: DataPlane; clock: Clock },
  identity: Identity,
  input: ListOffsetsInput,
) {
  // Cached routing, like produce and reads: served while Postgres is unreachable.
  const { partitionId } = await routedPartition(deps, identity.tenantId, input.topic, input.partition);
  const listed = await deps.dataPlane.listOffsets({
    partitionId,
    ...(input.timestamp === undefined ? {} : { timestamp: input.timestamp }),
  });
  return {
    partition: input.partition,
    earliest: listed.earliest,
    latest: listed.latest,
    timestampOffset: input.timestamp === undefined ? null : (listed.timestampOffset ?? null),
  };
}
