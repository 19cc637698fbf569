import type { DataPlane } from "@lastword/dataplane";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { auditAs } from "./audit-as";
import type { DeleteRecordsInput } from "./delete-records.schema";
import type { RecordDeps } from "./record.service";
import { findPartition } from "./topic.service";
import { storedConfigs } from "./topic-config";

/**
 * Kafka's deleteRecords: moves a partition's log start offset. Unlike a tombstone, consumers are
 * not told; it is refused up front on compact-only topics, where it would break the table. The
 * data plane is the REST API's client, or the owning worker's own partitions (Kafka DeleteRecords).
 */
export async function deleteRecordsBefore(
  deps: Pick<RecordDeps, "prisma" | "clock"> & { dataPlane: Pick<DataPlane, "deleteRecords"> },
  identity: Identity,
  input: DeleteRecordsInput,
) {
  const { topic, partition } = await findPartition(
    deps.prisma,
    identity.tenantId,
    input.topic,
    input.partition,
  );
  const policy = storedConfigs(topic.configs)["cleanup.policy"] ?? "delete";
  if (!policy.split(",").includes("delete")) {
    throw new AppError(
      "POLICY_VIOLATION",
      `Topic "${topic.name}" has cleanup.policy=${policy}: deleting records by offset would drop keys' latest values. ` +
        "Delete keys with tombstones (DELETE /topics/{topic}/keys/{key}) instead.",
    );
  }
  const { logStartOffset } = await deps.dataPlane.deleteRecords({
    partitionId: partition.id,
    beforeOffset: input.beforeOffset,
  });
  await deps.prisma.$transaction((tx) =>
    auditAs(tx, identity, {
      action: "partition.records.deleted",
      target: { type: "partition", id: partition.id },
      data: {
        topic: topic.name,
        partition: input.partition,
        beforeOffset: input.beforeOffset,
        logStartOffset,
      },
      now: new Date(deps.clock.now()),
    }),
  );
  return { partition: input.partition, logStartOffset };
}
