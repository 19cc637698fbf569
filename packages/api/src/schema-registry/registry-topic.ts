import type { Identity } from "../auth/request-identity";
import type { LookupDeps } from "../cache/lookup-cache";
import { AppError } from "../errors/app-error";
import { auditAs } from "../services/audit-as";
import { SCHEMA_REGISTRY_TOPIC } from "../services/protected-topics";
import { forgetTopicRouting, type TopicRouting, topicRouting } from "../services/topic.service";
import { validateConfigs } from "../services/topic-config";

/** The registry topic's partition: one, so every record of a tenant's registry is in one order. */
export interface RegistryPartition {
  partitionId: string;
}

function isNotFound(error: unknown): boolean {
  return error instanceof AppError && error.code === "TOPIC_NOT_FOUND";
}

/** The tenant's registry partition, or null while the tenant has registered nothing. */
export async function findRegistryPartition(
  deps: LookupDeps,
  tenantId: string,
): Promise<RegistryPartition | null> {
  let routing: TopicRouting;
  try {
    routing = await topicRouting(deps, tenantId, SCHEMA_REGISTRY_TOPIC);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  const partitionId = routing.partitionIds.get(0);
  if (partitionId === undefined)
    throw new AppError("INTERNAL", "The schema registry's topic has no partition 0.");
  return { partitionId };
}

/**
 * The registry topic, created on the tenant's first registry write: compacted, one partition,
 * outside the tenant's partition quota (it is the service's, not the tenant's), audited as made by
 * the caller whose write needed it. Two first writes at once make one topic.
 */
export async function ensureRegistryTopic(deps: LookupDeps, identity: Identity): Promise<RegistryPartition> {
  const existing = await findRegistryPartition(deps, identity.tenantId);
  if (existing) return existing;
  const { explicit } = validateConfigs({ "cleanup.policy": "compact" });
  const now = new Date(deps.clock.now());
  try {
    await deps.prisma.$transaction(async (tx) => {
      const topic = await tx.topic.create({
        data: {
          organizationId: identity.tenantId,
          name: SCHEMA_REGISTRY_TOPIC,
          partitionCount: 1,
          configs: explicit,
          createdAt: now,
        },
      });
      await tx.partition.create({ data: { topicId: topic.id, index: 0, createdAt: now } });
      await auditAs(tx, identity, {
        action: "topic.created",
        target: { type: "topic", id: topic.id },
        data: {
          name: SCHEMA_REGISTRY_TOPIC,
          partitions: 1,
          preset: null,
          configs: explicit,
          by: "schema-registry",
        },
        now,
      });
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "P2002") throw error;
  }
  forgetTopicRouting(deps.prisma, identity.tenantId, SCHEMA_REGISTRY_TOPIC);
  const created = await findRegistryPartition(deps, identity.tenantId);
  if (!created) throw new AppError("INTERNAL", "The schema registry's topic could not be created.");
  return created;
}
