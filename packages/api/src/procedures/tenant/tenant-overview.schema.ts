import { z } from "zod";

export const tenantOverviewInput = z.object({}).optional();

export const tenantOverviewOutput = z.object({
  objectStorage: z
    .object({ objects: z.number().int(), bytes: z.number() })
    .meta({ description: "The objects the partitions' manifests hold in object storage, and their bytes" }),
  kafkaClientsSeen: z.number().int().meta({
    description: "Distinct Kafka clients (id and software) seen on the tenant's topics in the last day",
  }),
  kafkaConnections: z
    .object({
      open: z.number().int(),
      workers: z.number().int(),
      asOf: z.string().nullable(),
    })
    .meta({
      description:
        "Kafka connections the tenant holds open, summed over the live workers' last heartbeats (workers: how many reported; asOf: the oldest of those heartbeats, null when none reported)",
    }),
  dirtiestTopics: z
    .array(
      z.object({
        topic: z.string(),
        dirtyBytes: z.number(),
        dirtyRatio: z.number(),
        sizeBytes: z.number(),
      }),
    )
    .meta({
      description: "The compacted topics with the most dirty bytes (workers' last reports), most first",
    }),
});
