import { z } from "zod";
import { LATEST_VIEW_SUFFIX } from "../records/latest-view-name";

// Kafka's rule for topic names, so a topic can be mirrored to Kafka under the same name.
export const topicNameSchema = z
  .string()
  .min(1)
  .max(249)
  .regex(/^[a-zA-Z0-9._-]+$/, "may contain only letters, digits, '.', '_' and '-'")
  .refine((name) => name !== "." && name !== "..", "may not be '.' or '..'")
  .meta({ description: "Topic name, unique within the tenant", example: "user-profiles" });

/** A name a new topic may take: Kafka's rule, less the view suffix. */
export const newTopicNameSchema = topicNameSchema.refine(
  (name) => !name.endsWith(LATEST_VIEW_SUFFIX),
  `may not end in '${LATEST_VIEW_SUFFIX}': that suffix names a compacted topic's read-only latest-value view over Kafka`,
);

export const configValuesSchema = z
  .record(z.string().max(64), z.union([z.string().max(256), z.number()]))
  .meta({ description: 'Kafka topic configs, e.g. {"cleanup.policy":"compact"}' });

export const topicSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    partitions: z.number().int(),
    cleanupPolicy: z.string(),
    configs: z
      .record(z.string(), z.string())
      .meta({ description: "Configs set explicitly; the rest are defaults" }),
    createdAt: z.string().meta({ description: "RFC 3339" }),
  })
  .meta({
    example: {
      id: "cm5topic0000user0profiles01",
      name: "user-profiles",
      partitions: 3,
      cleanupPolicy: "compact",
      configs: { "cleanup.policy": "compact", "max.compaction.lag.ms": "1296000000" },
      createdAt: "2026-01-05T09:30:00.000Z",
    },
  });

export type TopicSummary = z.infer<typeof topicSummarySchema>;

export const topicPathSchema = z.object({ topic: topicNameSchema });

export const warningSchema = z
  .object({
    code: z.string().meta({
      description:
        "RETENTION_BELOW_SEGMENT_MS, RETENTION_BYTES_PER_PARTITION, PARTITIONS_UNCLEANABLE, ERASURE_DEADLINE_MISSED, KEYS_LOOK_UNIQUE; DELETE_TO_COMPACT on a config change",
    }),
    message: z.string(),
  })
  .meta({
    example: {
      code: "RETENTION_BYTES_PER_PARTITION",
      message:
        "retention.bytes applies per partition: this topic may keep up to 3000000000 bytes (3 × 1000000000).",
    },
  });
