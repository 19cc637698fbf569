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
  overrideErasureDeadlines: z.boolean().default(false).meta({
    description:
      "Owners only: make a change that would make a pending erasure request miss its deadline (refused otherwise; audited). The erasure is still purged in time: the worker overrides the setting for the erased key.",
  }),
});

export type AlterConfigsInput = z.infer<typeof alterConfigsInput>;

export const alterConfigsOutput = z.object({
  topic: topicSummarySchema,
  changes: z.array(
    z.object({ name: z.string(), before: z.string().nullable(), after: z.string().nullable() }),
  ),
  warnings: z.array(warningSchema),
  validateOnly: z.boolean(),
  /** The pending erasure requests an owner's override let this change put at risk (empty otherwise). */
  overriddenErasures: z.array(z.object({ id: z.string(), deadlineAt: z.string() })).default([]),
});
