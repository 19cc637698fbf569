import { z } from "zod";
import { topicSummarySchema, warningSchema } from "../../services/topic.schema";

export const listTopicsInput = z.object({
  limit: z.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(400).optional().meta({ description: "nextCursor of the previous page" }),
});

export const topicUsageSchema = z
  .object({
    reportedPartitions: z.number().int().meta({ description: "Partitions whose worker has reported" }),
    sizeBytes: z.number().int(),
    dirtyBytes: z.number().int().meta({
      description: "Per partition its dirty ratio × its size (workers report the ratio, not bytes)",
    }),
    dirtyRatio: z.number().meta({ description: "dirtyBytes / sizeBytes" }),
    lastCleanAt: z
      .string()
      .nullable()
      .meta({ description: "Latest completed pass of any partition (RFC 3339)" }),
    uncleanablePartitions: z.number().int(),
  })
  .meta({ description: "From the partitions' last worker reports" });

export const listTopicsOutput = z.object({
  topics: z.array(topicSummarySchema.extend({ usage: topicUsageSchema, warnings: z.array(warningSchema) })),
  nextCursor: z.string().nullable(),
});
