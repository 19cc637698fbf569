import { z } from "zod";

// Kafka's rule for topic names, so a topic can be mirrored to Kafka under the same name.
export const topicNameSchema = z
  .string()
  .min(1)
  .max(249)
  .regex(/^[a-zA-Z0-9._-]+$/, "may contain only letters, digits, '.', '_' and '-'")
  .refine((name) => name !== "." && name !== "..", "may not be '.' or '..'")
  .meta({ description: "Topic name, unique within the tenant", example: "user-profiles" });

export const configValuesSchema = z
  .record(z.string().max(64), z.union([z.string().max(256), z.number()]))
  .meta({ description: 'Kafka topic configs, e.g. {"cleanup.policy":"compact"}' });

export const topicSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  partitions: z.number().int(),
  cleanupPolicy: z.string(),
  configs: z
    .record(z.string(), z.string())
    .meta({ description: "Configs set explicitly; the rest are defaults" }),
  createdAt: z.string().meta({ description: "RFC 3339" }),
});

export type TopicSummary = z.infer<typeof topicSummarySchema>;

export const topicPathSchema = z.object({ topic: topicNameSchema });

export const warningSchema = z.object({ code: z.string(), message: z.string() });
