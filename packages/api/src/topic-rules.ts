/**
 * The topic rules a browser may import (`@lastword/api/topic-rules`): the create input's zod schema,
 * the presets, the config definitions and validator, the erasure preflight and why a compacted
 * topic's partition count is frozen —
 * so the console's create wizard validates with the API's own rules instead of a copy. Nothing
 * here reaches Node, Prisma or Redis (the config catalog is @lastword/topic-config, browser-safe).
 */

export type { Preflight } from "@lastword/erasure";
export {
  LONG_MAX_MS,
  parseTopicConfig,
  TOPIC_CONFIG_DEFINITIONS,
  type TopicConfig,
  type TopicConfigDefinition,
  type TopicConfigName,
} from "@lastword/topic-config";
export { createTopicInput, MAX_PARTITIONS_PER_TOPIC } from "./services/create-topic.schema";
export { erasurePreflight } from "./services/erasure-preflight";
export { PARTITIONS_FROZEN_EXPLANATION } from "./services/partitions-frozen";
export { presetConfigs, TOPIC_PRESETS, type TopicPreset } from "./services/topic-presets";
