import { z } from "zod";
import { MAX_PARTITIONS_PER_TOPIC } from "../../services/create-topic.schema";
import { topicNameSchema, topicSummarySchema } from "../../services/topic.schema";

export const addPartitionsInput = z.object({
  topic: topicNameSchema,
  count: z
    .number()
    .int()
    .min(2)
    .max(MAX_PARTITIONS_PER_TOPIC)
    .meta({ description: "The new total partition count" }),
  force: z
    .boolean()
    .default(false)
    .meta({ description: "Admins only: add partitions to a compacted topic anyway" }),
});

export const addPartitionsOutput = z.object({ topic: topicSummarySchema, forced: z.boolean() });
