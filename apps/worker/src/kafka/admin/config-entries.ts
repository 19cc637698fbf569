import type { ConfigEntry } from "@lastword/api/topic-admin";
import {
  TOPIC_CONFIG_DEFINITIONS,
  type TopicConfigDefinition,
  type TopicConfigName,
} from "@lastword/topic-config";

/** Kafka's ConfigSource: a topic override (1) or the default (5), as kafkajs reads `isDefault`. */
export const CONFIG_SOURCE = { set: 1, default: 5 } as const satisfies Record<ConfigEntry["source"], number>;

// Kafka's ConfigEntry.ConfigType ids (DescribeConfigs v3+).
const CONFIG_TYPE: Record<TopicConfigDefinition["type"], number> = {
  string: 2,
  int: 3,
  long: 5,
  double: 6,
  list: 7,
};

/**
 * The broker-level config whose value a topic config falls back to, by the name Kafka gives it
 * (its ServerTopicConfigSynonyms, the first and highest-priority synonym of each): a DescribeConfigs
 * synonym of source DEFAULT_CONFIG carries this name, as a Kafka broker's does. `lastword.durability`
 * has no broker-level setting, so its default goes under its own name (Kafka's topic configs
 * without a server default do the same).
 */
const BROKER_SYNONYM: Record<Exclude<TopicConfigName, "lastword.durability">, string> = {
  "cleanup.policy": "log.cleanup.policy",
  "retention.ms": "log.retention.ms",
  "retention.bytes": "log.retention.bytes",
  "local.retention.ms": "log.local.retention.ms",
  "local.retention.bytes": "log.local.retention.bytes",
  "segment.ms": "log.roll.ms",
  "segment.bytes": "log.segment.bytes",
  "segment.jitter.ms": "log.roll.jitter.ms",
  "segment.index.bytes": "log.index.size.max.bytes",
  "min.cleanable.dirty.ratio": "log.cleaner.min.cleanable.ratio",
  "min.compaction.lag.ms": "log.cleaner.min.compaction.lag.ms",
  "max.compaction.lag.ms": "log.cleaner.max.compaction.lag.ms",
  "delete.retention.ms": "log.cleaner.delete.retention.ms",
  "max.message.bytes": "message.max.bytes",
  "file.delete.delay.ms": "log.segment.delete.delay.ms",
  "message.timestamp.type": "log.message.timestamp.type",
  "message.timestamp.difference.max.ms": "log.message.timestamp.difference.max.ms",
  "message.timestamp.before.max.ms": "log.message.timestamp.before.max.ms",
  "message.timestamp.after.max.ms": "log.message.timestamp.after.max.ms",
  "compression.type": "compression.type",
};

/** The name a topic config's default is described under (see BROKER_SYNONYM). */
export function defaultSynonymName(name: string): string {
  return (BROKER_SYNONYM as Record<string, string>)[name] ?? name;
}

const definitionOf = new Map(TOPIC_CONFIG_DEFINITIONS.map((d) => [d.name as string, d]));

export function configTypeOf(name: string): number {
  const type = definitionOf.get(name)?.type;
  return type ? CONFIG_TYPE[type] : 0;
}

/** Whether `name` is a list config, the only kind IncrementalAlterConfigs may APPEND to or SUBTRACT from. */
export function isListConfig(name: string): boolean {
  return definitionOf.get(name)?.type === "list";
}

/** A config's value from the set explicitly stored, or its default. */
export function effectiveValue(explicit: Readonly<Record<string, string>>, name: string): string | null {
  return explicit[name] ?? definitionOf.get(name)?.default ?? null;
}
