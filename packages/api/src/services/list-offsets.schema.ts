import { z } from "zod";
import { topicNameSchema } from "./topic.schema";

export const listOffsetsInput = z.object({
  topic: topicNameSchema,
  partition: z.number().int().min(0),
  timestamp: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "Epoch ms: also answer the first offset whose record timestamp is at or after it" }),
});

export type ListOffsetsInput = z.infer<typeof listOffsetsInput>;

export const listOffsetsOutput = z.object({
  partition: z.number().int(),
  earliest: z.number().int().meta({ description: "The log start offset" }),
  latest: z.number().int().meta({ description: "The log end offset (the next record's offset)" }),
  timestampOffset: z.number().int().nullable().meta({
    description:
      "First offset with timestamp ≥ `timestamp`; null when no record is that recent, or no timestamp was given",
  }),
});
