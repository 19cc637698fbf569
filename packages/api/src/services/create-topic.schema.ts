import { z } from "zod";
import { configValuesSchema, newTopicNameSchema, topicSummarySchema, warningSchema } from "./topic.schema";
import { TOPIC_PRESETS } from "./topic-presets";

/** Most partitions one topic may have; the tenant's partition quota applies on top. */
export const MAX_PARTITIONS_PER_TOPIC = 256;

// Examples sit on the fields: the REST document rebuilds the request body without the input's own meta.
export const createTopicInput = z.object({
  name: newTopicNameSchema,
  partitions: z.number().int().min(1).max(MAX_PARTITIONS_PER_TOPIC).default(1).meta({ example: 3 }),
  preset: z
    .enum(TOPIC_PRESETS)
    .optional()
    .meta({ description: "Configs to start from; `configs` override them", example: "gdpr-table" }),
  configs: configValuesSchema.default({}).meta({ example: { "min.cleanable.dirty.ratio": "0.1" } }),
  validateOnly: z.boolean().default(false).meta({ description: "Check everything, create nothing" }),
});

export type CreateTopicInput = z.infer<typeof createTopicInput>;

export const createTopicOutput = z.object({
  topic: topicSummarySchema,
  validateOnly: z.boolean(),
  warnings: z.array(warningSchema),
});
