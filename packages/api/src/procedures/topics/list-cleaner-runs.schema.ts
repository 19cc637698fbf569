import { z } from "zod";
import { topicNameSchema } from "./topic.schema";

export const listCleanerRunsInput = z.object({
  topic: topicNameSchema,
  limit: z.number().int().min(1).max(500).default(50),
});

export const listCleanerRunsOutput = z.object({
  runs: z.array(
    z.object({
      id: z.string(),
      partition: z.number().int(),
      status: z.string(),
      startedAt: z.string(),
      finishedAt: z.string().nullable(),
      bytesRead: z.number(),
      bytesWritten: z.number(),
      recordsRemoved: z.number().int(),
      tombstonesRemoved: z.number().int(),
      mapUtilisation: z.number().nullable(),
      durationMs: z.number().int().nullable(),
      error: z.string().nullable(),
    }),
  ),
});
