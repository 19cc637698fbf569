import { z } from "zod";
import { topicSummarySchema, warningSchema } from "../../services/topic.schema";

export { topicPathSchema as getTopicInput } from "../../services/topic.schema";

export const getTopicOutput = topicSummarySchema.extend({
  configEntries: z.array(
    z.object({
      name: z.string(),
      value: z.string(),
      default: z.string(),
      source: z.enum(["set", "default"]),
      doc: z.string(),
    }),
  ),
  partitionDetails: z.array(
    z.object({
      partition: z.number().int(),
      ownerWorkerId: z.string().nullable(),
      leaseExpiresAt: z.string().nullable(),
      sizeBytes: z.number().nullable(),
      logStartOffset: z.number().int().nullable(),
      logEndOffset: z.number().int().nullable(),
      dirtyRatio: z.number().nullable(),
      statsUpdatedAt: z
        .string()
        .nullable()
        .meta({ description: "When the owning worker last reported; null: not yet" }),
      stats: z
        .record(z.string(), z.unknown())
        .nullable()
        .meta({ description: "Everything the worker reports" }),
    }),
  ),
  warnings: z.array(warningSchema),
});
