import type { ConfigEntry } from "@lastword/api/topic-admin";
import { TOPIC_CONFIG_DEFINITIONS, type TopicConfigDefinition } from "@lastword/logstore";

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
