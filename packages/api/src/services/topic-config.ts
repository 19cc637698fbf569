import {
  parseTopicConfig,
  TOPIC_CONFIG_DEFINITIONS,
  type TopicConfig,
  TopicConfigError,
  type TopicConfigName,
} from "@lastword/topic-config";
import { AppError } from "../errors/app-error";

/** Configs as stored on Topic.configs: only those set explicitly, Kafka names, string values. */
export type ExplicitConfigs = Record<string, string>;

export interface ConfigEntry {
  name: TopicConfigName;
  value: string;
  default: string;
  source: "set" | "default";
  doc: string;
}

/** Validates configs with the catalog's rules (@lastword/topic-config: one validator for API, worker and console). */
export function validateConfigs(input: Readonly<Record<string, string | number>>): {
  explicit: ExplicitConfigs;
  parsed: TopicConfig;
} {
  try {
    const parsed = parseTopicConfig(input);
    const explicit: ExplicitConfigs = {};
    for (const [name, value] of Object.entries(input)) explicit[name] = String(value).trim();
    return { explicit, parsed };
  } catch (error) {
    if (error instanceof TopicConfigError)
      throw new AppError("INVALID_CONFIG", error.message, { cause: error });
    throw error;
  }
}

export function storedConfigs(json: unknown): ExplicitConfigs {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return {};
  const out: ExplicitConfigs = {};
  for (const [name, value] of Object.entries(json)) {
    if (typeof value === "string" || typeof value === "number") out[name] = String(value);
  }
  return out;
}

export function isCompacted(explicit: ExplicitConfigs): boolean {
  return (explicit["cleanup.policy"] ?? "delete")
    .split(",")
    .some((p) => p.trim().toLowerCase() === "compact");
}

export function cleanupPolicyOf(explicit: ExplicitConfigs): string {
  return explicit["cleanup.policy"] ?? "delete";
}

/** Every config with its effective value, default, source and a one-line explanation. */
export function describeConfigs(explicit: ExplicitConfigs): ConfigEntry[] {
  return TOPIC_CONFIG_DEFINITIONS.map((definition) => {
    const set = explicit[definition.name];
    return {
      name: definition.name,
      value: set ?? definition.default,
      default: definition.default,
      source: set === undefined ? "default" : "set",
      doc: definition.doc,
    };
  });
}
