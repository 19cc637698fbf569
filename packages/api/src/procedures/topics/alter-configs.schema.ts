import { z } from "zod";
import { configValuesSchema, topicNameSchema, topicSummarySchema, warningSchema } from "./topic.schema";

export const alterConfigsInput = z.object({
  topic: topicNameSchema,
  set: configValuesSchema.default({}),
  reset: z
    .array(z.string().max(64))
    .max(64)
    .default([])
    .meta({ description: "Configs to return to their default" }),
  validateOnly: z.boolean().default(false),
});

export type AlterConfigsInput = z.infer<typeof alterConfigsInput>;

export const alterConfigsOutput = z.object({
  topic: topicSummarySchema,
  changes: z.array(
    z.object({ name: z.string(), before: z.string().nullable(), after: z.string().nullable() }),
  ),
  warnings: z.array(warningSchema),
  validateOnly: z.boolean(),
});
