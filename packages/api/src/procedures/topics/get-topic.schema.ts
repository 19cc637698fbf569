import { z } from "zod";
import { topicSummarySchema } from "./topic.schema";

export { topicPathSchema as getTopicInput } from "./topic.schema";

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
      stats: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
});
