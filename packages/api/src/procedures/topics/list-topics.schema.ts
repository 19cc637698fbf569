import { z } from "zod";
import { topicSummarySchema } from "./topic.schema";

export const listTopicsInput = z.object({
  limit: z.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(400).optional().meta({ description: "nextCursor of the previous page" }),
});

export const listTopicsOutput = z.object({
  topics: z.array(topicSummarySchema),
  nextCursor: z.string().nullable(),
});
