import { z } from "zod";
import { topicNameSchema } from "./topic.schema";

export const deleteRecordsInput = z.object({
  topic: topicNameSchema,
  partition: z.number().int().min(0),
  beforeOffset: z.number().int().min(0).meta({
    description: "Records below this offset become unreadable; whole segments below it are deleted",
  }),
});

export type DeleteRecordsInput = z.infer<typeof deleteRecordsInput>;

export const deleteRecordsOutput = z.object({
  partition: z.number().int(),
  logStartOffset: z.number().int().meta({ description: "The partition's first readable offset now" }),
});
