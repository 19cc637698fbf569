import { segmentStateSchema } from "@lastword/dataplane";
import { z } from "zod";
import { partitionLogRangeSchema } from "./record.schema";
import { topicNameSchema } from "./topic.schema";

export const partitionSegmentsInput = z.object({
  topic: topicNameSchema,
  partition: z.number().int().min(0),
});

export type PartitionSegmentsInput = z.infer<typeof partitionSegmentsInput>;

const epochMs = z.number().int().nullable();

export const partitionSegmentsOutput = partitionLogRangeSchema.extend({
  lastStableOffset: z
    .number()
    .int()
    .meta({ description: "Kafka's last stable offset: read_committed consumers read up to here" }),
  openTransactions: z
    .array(
      z.object({
        producerId: z.number().int(),
        producerEpoch: z.number().int(),
        firstOffset: z.number().int().meta({ description: "Where the transaction's first record is" }),
        transactionalId: z
          .string()
          .nullable()
          .meta({ description: "Its Kafka transactional id, when known" }),
        startedAt: z.iso.datetime().nullable().meta({ description: "When its coordinator began it" }),
      }),
    )
    .meta({ description: "Kafka transactions open in the partition (they hold the last stable offset)" }),
  segments: z.array(
    z.object({
      baseOffset: z.number().int(),
      lastOffset: z
        .number()
        .int()
        .meta({ description: "Last offset written to the segment (base − 1 when empty)" }),
      sizeBytes: z.number().int(),
      records: z.number().int(),
      tombstones: z
        .number()
        .int()
        .meta({ description: "Records in the segment with a key and a null value (deletes)" }),
      firstTimestamp: epochMs.meta({
        description: "Epoch ms of the segment's first record, null when empty",
      }),
      maxTimestamp: epochMs.meta({ description: "Largest record timestamp in the segment (epoch ms)" }),
      state: segmentStateSchema.meta({
        description: "clean: behind the cleaner checkpoint; dirty: not yet compacted; active: being written",
      }),
    }),
  ),
  cleaner: z
    .object({
      dirtyRatio: z.number(),
      cleanable: z.boolean(),
      firstDirtyOffset: z.number().int(),
      firstUncleanableOffset: z.number().int(),
      maxCompactionDelayMs: z.number(),
      nextCleanDueAt: epochMs,
      lastCleanAt: epochMs,
      uncleanable: z
        .object({
          error: z.string(),
          failures: z.number().int(),
          held: z.boolean(),
          retryAt: epochMs,
        })
        .nullable(),
    })
    .nullable()
    .meta({ description: "The partition's cleaner state; null when the topic does not compact" }),
});

export type PartitionSegmentsOutput = z.infer<typeof partitionSegmentsOutput>;
