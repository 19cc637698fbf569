import { DURABILITY_MODES } from "@lastword/topic-config";
import { z } from "zod";
import { topicNameSchema } from "./topic.schema";

export const topicDurabilityInput = z.object({ topic: topicNameSchema });

export type TopicDurabilityInput = z.infer<typeof topicDurabilityInput>;

const offset = z.number().int();

export const topicDurabilityOutput = z.object({
  mode: z.enum(DURABILITY_MODES).meta({
    description:
      "lastword.durability: object acknowledges a produce after its upload and manifest commit; local on the local fsync (uploaded by the next commit window)",
  }),
  objectStore: z.boolean().meta({
    description:
      "Whether the fleet keeps partitions in object storage at all; false: no worker has opened any partition with an object store (local disk only)",
  }),
  lastObjectAt: z.string().nullable().meta({
    description: "When the topic's newest object was committed to the manifest (ISO 8601); null before any",
  }),
  partitions: z.array(
    z.object({
      partition: z.number().int(),
      logEndOffset: offset.nullable().meta({
        description: "One past the last offset, from the owner's last stats report; null before any",
      }),
      durableEndOffset: offset.nullable().meta({
        description:
          "Every offset below it is in object storage under a committed manifest row; null until a worker with an object store opens the partition",
      }),
      pendingOffsets: offset.nullable().meta({
        description:
          "Offsets from the durable end to the reported log end: appended, not yet in object storage; null when either end is unknown",
      }),
      objects: z
        .number()
        .int()
        .meta({ description: "Manifest rows (objects) naming this partition's bytes" }),
      objectBytes: z.number().int().meta({ description: "Bytes of this partition those objects hold" }),
      lastObjectAt: z.string().nullable(),
      reportedAt: z.string().nullable().meta({ description: "When the owner last reported the log end" }),
    }),
  ),
});

export type TopicDurabilityOutput = z.infer<typeof topicDurabilityOutput>;
