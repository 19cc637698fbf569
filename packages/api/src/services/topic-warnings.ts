import type { Topic } from "@lastword/db";
import type { Preflight } from "@lastword/erasure";
import { parseTopicConfig } from "@lastword/topic-config";
import type { Identity } from "../auth/request-identity";
import { type KeySample, type KeySampleDeps, topicKeySample } from "./key-sample";
import { tenantQuota } from "./rate-limit.service";
import { type ExplicitConfigs, isCompacted, storedConfigs } from "./topic-config";
import { topicPreflights } from "./topic-deadline";
import { type ConfigWarning, configWarnings } from "./topic-guardrails";
import { type TopicUsage, topicUsage } from "./topic-usage";

const DAY_MS = 86_400_000;
const KEY_SAMPLE_MIN_RECORDS = 100;
const UNIQUE_KEY_SHARE = 0.95;

/** What a topic's warnings are judged from. */
export interface TopicFacts {
  configs: ExplicitConfigs;
  partitions: number;
  /** From the partitions' last worker reports. */
  usage: TopicUsage;
  /** A compacted topic's erasure preflight against the tenant's deadline (the compliance page's verdict). */
  deadline: { days: number; preflight: Preflight } | null;
  /** A compacted topic's latest keys. */
  keys: KeySample | null;
}

/**
 * Every warning of a topic, the one set the topic list, the topic page and the REST API show: the
 * config guardrails, partitions the cleaner has given up on, a compacted topic whose configs cannot
 * meet the erasure deadline (the verdict the compliance page and an erasure request's preflight
 * give), and one whose recent keys are nearly all distinct (compaction would reclaim almost nothing).
 */
export function topicWarnings(facts: TopicFacts): ConfigWarning[] {
  const warnings = configWarnings(parseTopicConfig(facts.configs), facts.partitions);
  const { usage, deadline, keys } = facts;
  if (usage.uncleanablePartitions > 0) {
    warnings.push({
      code: "PARTITIONS_UNCLEANABLE",
      message: `${usage.uncleanablePartitions} of ${facts.partitions} partitions cannot be cleaned: their cleaner passes fail.`,
    });
  }
  if (deadline && !deadline.preflight.meetsDeadline) {
    const fix = deadline.preflight.fix;
    const change = fix
      ? ` Setting ${Object.entries(fix)
          .map(([name, value]) => `${name}=${value}`)
          .join(", ")} meets it.`
      : "";
    warnings.push({
      code: "ERASURE_DEADLINE_MISSED",
      message: `Cannot meet the ${deadline.days}-day erasure deadline: an erased key's old values may outlive it, as the compliance page's preflight says.${change}`,
    });
  }
  if (keys && keys.records >= KEY_SAMPLE_MIN_RECORDS && keys.distinct / keys.records >= UNIQUE_KEY_SHARE) {
    warnings.push({
      code: "KEYS_LOOK_UNIQUE",
      message: `${keys.distinct} of the latest ${keys.records} records have distinct keys: compaction will reclaim almost nothing. Use a delete (or compact,delete) policy with retention, or key records by the entity they update.`,
    });
  }
  return warnings;
}

/** A topic row with its partitions, as the list and the topic page read them. */
export interface TopicWithPartitions {
  topic: Pick<Topic, "id" | "configs" | "partitionCount">;
  partitions: readonly { id: string; ownerWorkerId: string | null; stats: unknown }[];
}

/** The warnings of each topic (by id), their facts gathered for all of them at once. */
export async function loadTopicWarnings(
  deps: KeySampleDeps,
  identity: Identity,
  topics: readonly TopicWithPartitions[],
): Promise<Map<string, ConfigWarning[]>> {
  const compacted = topics.filter(({ topic }) => isCompacted(storedConfigs(topic.configs)));
  const days = (await tenantQuota(deps, identity.tenantId)).erasureDeadlineDays;
  const [preflights, samples] = await Promise.all([
    topicPreflights(
      deps.prisma,
      compacted.map(({ topic }) => topic),
      days * DAY_MS,
    ),
    Promise.all(compacted.map(({ topic, partitions }) => topicKeySample(deps, topic.id, partitions))),
  ]);
  const keysOf = new Map(compacted.map(({ topic }, i) => [topic.id, samples[i] ?? null]));
  return new Map(
    topics.map(({ topic, partitions }) => {
      const preflight = preflights.get(topic.id);
      const warnings = topicWarnings({
        configs: storedConfigs(topic.configs),
        partitions: topic.partitionCount,
        usage: topicUsage(partitions.map((p) => p.stats)),
        deadline: preflight ? { days, preflight } : null,
        keys: keysOf.get(topic.id) ?? null,
      });
      return [topic.id, warnings];
    }),
  );
}
