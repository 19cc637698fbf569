import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { auditAs } from "./audit-as";
import type { RecordDeps } from "./record.service";
import type { RequestCleanInput } from "./request-clean.schema";
import { findPartition } from "./topic.service";
import { isCompacted, storedConfigs } from "./topic-config";

/** A cleaner pass on demand (and the way out of an uncleanable hold without a restart, unlike Kafka). */
export async function requestClean(deps: RecordDeps, identity: Identity, input: RequestCleanInput) {
  const { topic, partition } = await findPartition(
    deps.prisma,
    identity.tenantId,
    input.topic,
    input.partition,
  );
  if (!isCompacted(storedConfigs(topic.configs))) {
    throw new AppError(
      "POLICY_VIOLATION",
      `Topic "${topic.name}" is not compacted: only topics with cleanup.policy containing "compact" have a cleaner.`,
    );
  }
  await deps.dataPlane.requestClean({ partitionId: partition.id });
  await deps.prisma.$transaction((tx) =>
    auditAs(tx, identity, {
      action: "partition.clean.requested",
      target: { type: "partition", id: partition.id },
      data: { topic: topic.name, partition: input.partition },
      now: new Date(deps.clock.now()),
    }),
  );
  return { partition: input.partition, accepted: true as const };
}
