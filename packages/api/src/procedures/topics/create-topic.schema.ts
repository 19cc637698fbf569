import { z } from "zod";
import { configValuesSchema, topicNameSchema, topicSummarySchema } from "./topic.schema";

/** Most partitions one topic may have; the tenant's partition quota applies on top. */
export const MAX_PARTITIONS_PER_TOPIC = 256;

export const createTopicInput = z.object({
  name: topicNameSchema,
  partitions: z.number().int().min(1).max(MAX_PARTITIONS_PER_TOPIC).default(1),
  configs: configValuesSchema.default({}),
  validateOnly: z.boolean().default(false).meta({ description: "Check everything, create nothing" }),
});

export type CreateTopicInput = z.infer<typeof createTopicInput>;

export const createTopicOutput = z.object({
  topic: topicSummarySchema,
  validateOnly: z.boolean(),
});
