import { parseTopicConfig, type TopicConfig } from "@lastword/topic-config";
import type { Identity } from "../auth/request-identity";
import { hasScope } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import type { AlterConfigsInput } from "./alter-configs.schema";
import { auditAs } from "./audit-as";
import { erasuresEndangeredBy } from "./erasure-config-guard";
import { assertPartitionQuota, PARTITION_CHANGE_TRANSACTION, reservePartitions } from "./partition-quota";
import { PARTITIONS_FROZEN_EXPLANATION } from "./partitions-frozen";
import { assertNotProtected } from "./protected-topics";
import { tenantQuota } from "./rate-limit.service";
import { findTopic, forgetTopicRouting, type TopicDeps, topicNotFound, topicSummary } from "./topic.service";
import { type ExplicitConfigs, isCompacted, storedConfigs, validateConfigs } from "./topic-config";
import { type ConfigWarning, changeWarnings, configWarnings } from "./topic-guardrails";

export interface ConfigChange {
  name: string;
  before: string | null;
  after: string | null;
}

function diffConfigs(before: ExplicitConfigs, after: ExplicitConfigs): ConfigChange[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names
    .map((name) => ({ name, before: before[name] ?? null, after: after[name] ?? null }))
    .filter((c) => c.before !== c.after);
}

/**
 * A compacted topic stays compacted: without `compact` in its policy, retention would delete keys'
 * latest values (irreversibly), and readers rebuilding a table from it would miss keys.
 */
function assertKeepsCompaction(name: string, before: ExplicitConfigs, after: TopicConfig): void {
  if (!isCompacted(before) || after.cleanupPolicy.compact) return;
  const policy = after.cleanupPolicy.delete ? "delete" : "none";
  throw new AppError(
    "POLICY_VIOLATION",
    `Topic "${name}" is compacted; cleanup.policy=${policy} would stop compaction and let retention delete keys' latest values. ` +
      "Keep compact in cleanup.policy (compact or compact,delete), or create a new topic with the policy you need and replay this one into it.",
  );
}

/**
 * Sets and resets configs (reset = back to the default), validated as a whole with the log store's
 * rules (a compacted topic may not drop `compact`); the before/after diff goes to the audit trail. Workers reopen the partitions with the
 * new configs when they see Topic.updatedAt change.
 */
export async function alterTopicConfigs(deps: TopicDeps, identity: Identity, input: AlterConfigsInput) {
  assertNotProtected(input.topic, "reconfigured");
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const before = storedConfigs(topic.configs);
  const next: Record<string, string | number> = { ...before, ...input.set };
  for (const name of input.reset) delete next[name];
  const { explicit, parsed } = validateConfigs(next);
  assertKeepsCompaction(topic.name, before, parsed);
  const changes = diffConfigs(before, explicit);
  const overridden =
    changes.length === 0
      ? []
      : await erasuresEndangeredBy(
          deps.prisma,
          identity,
          topic,
          before,
          explicit,
          input.overrideErasureDeadlines,
        );
  const warnings: ConfigWarning[] = [
    ...changeWarnings(parseTopicConfig(before), parsed),
    ...configWarnings(parsed, topic.partitionCount),
  ];
  if (input.validateOnly || changes.length === 0) {
    return {
      topic: topicSummary({ ...topic, configs: explicit }),
      changes,
      warnings,
      validateOnly: input.validateOnly,
      overriddenErasures: overridden,
    };
  }
  const now = new Date(deps.clock.now());
  const updated = await deps.prisma.$transaction(async (tx) => {
    const row = await tx.topic.update({
      where: { id: topic.id },
      data: { configs: explicit, updatedAt: now },
    });
    await auditAs(tx, identity, {
      action: "topic.configs.altered",
      target: { type: "topic", id: topic.id },
      data: { name: topic.name, changes: changes.map((c) => ({ ...c })) },
      now,
    });
    if (overridden.length > 0) {
      // The owner's explicit override, its own event: what it put at risk and why it was allowed.
      await auditAs(tx, identity, {
        action: "topic.configs.erasure-override",
        target: { type: "topic", id: topic.id },
        data: {
          name: topic.name,
          changes: changes.map((c) => ({ ...c })),
          erasureRequests: overridden.map((e) => ({ ...e })),
        },
        now,
      });
    }
    return row;
  });
  // Produce reads the cleanup policy (null keys on compacted topics) from the cached routing.
  forgetTopicRouting(deps.prisma, identity.tenantId, topic.name);
  return {
    topic: topicSummary(updated),
    changes,
    warnings,
    validateOnly: false,
    overriddenErasures: overridden,
  };
}

function assertGrows(name: string, current: number, count: number): void {
  if (count > current) return;
  throw new AppError(
    "INVALID_INPUT",
    `Topic "${name}" already has ${current} partitions; count is the new total and must be larger.`,
  );
}

/**
 * Raises the partition count to `count`. Refused on compacted topics (409) unless a caller with
 * the admin scope forces it; the forced change is audited as such. `validateOnly` checks all of
 * that and changes nothing.
 */
export async function addPartitions(
  deps: TopicDeps,
  identity: Identity,
  input: { topic: string; count: number; force: boolean; validateOnly?: boolean },
) {
  assertNotProtected(input.topic, "given partitions");
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  assertGrows(topic.name, topic.partitionCount, input.count);
  const compacted = isCompacted(storedConfigs(topic.configs));
  const forced = compacted && input.force && hasScope(identity.scopes, "admin");
  if (compacted && !forced) {
    throw new AppError(
      "PARTITIONS_FROZEN",
      `Topic "${topic.name}" is compacted; its partition count is frozen. ${PARTITIONS_FROZEN_EXPLANATION}`,
      {
        details: { partitions: topic.partitionCount, forceRequires: "admin" },
      },
    );
  }
  await assertPartitionQuota(deps, identity.tenantId, input.count - topic.partitionCount);
  if (input.validateOnly) {
    return { topic: topicSummary({ ...topic, partitionCount: input.count }), forced };
  }
  const now = new Date(deps.clock.now());
  const quota = await tenantQuota(deps, identity.tenantId);
  const updated = await deps.prisma.$transaction(async (tx) => {
    // Read again under the tenant's partition lock: a concurrent growth of this topic may have committed.
    let before = topic.partitionCount;
    await reservePartitions(tx, quota, identity.tenantId, async () => {
      const row = await tx.topic.findFirst({
        where: { id: topic.id, organizationId: identity.tenantId },
        select: { partitionCount: true },
      });
      if (!row) throw topicNotFound(topic.name);
      before = row.partitionCount;
      assertGrows(topic.name, before, input.count);
      return input.count - before;
    });
    await tx.partition.createMany({
      data: Array.from({ length: input.count - before }, (_, i) => ({
        topicId: topic.id,
        index: before + i,
        createdAt: now,
      })),
    });
    const row = await tx.topic.update({
      where: { id: topic.id },
      data: { partitionCount: input.count, updatedAt: now },
    });
    await auditAs(tx, identity, {
      action: forced ? "topic.partitions.forced" : "topic.partitions.added",
      target: { type: "topic", id: topic.id },
      data: { name: topic.name, before, after: input.count, compacted },
      now,
    });
    return row;
  }, PARTITION_CHANGE_TRANSACTION);
  forgetTopicRouting(deps.prisma, identity.tenantId, topic.name);
  return { topic: topicSummary(updated), forced };
}
