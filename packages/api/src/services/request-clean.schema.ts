import { z } from "zod";
import { topicNameSchema } from "./topic.schema";

export const requestCleanInput = z.object({
  topic: topicNameSchema,
  partition: z.number().int().min(0),
});

export type RequestCleanInput = z.infer<typeof requestCleanInput>;

export const requestCleanOutput = z.object({
  partition: z.number().int(),
  accepted: z.literal(true).meta({ description: "The owning worker queued (or ran) a pass" }),
});
