import { CleanerRunStatus } from "@lastword/db";
import { z } from "zod";
import { topicNameSchema } from "../../services/topic.schema";

export const listCleanerRunsInput = z.object({
  topic: topicNameSchema,
  limit: z.number().int().min(1).max(500).default(50),
  partition: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "Only this partition's passes (the dirty-ratio history of one partition)" }),
});

export const listCleanerRunsOutput = z.object({
  runs: z.array(
    z.object({
      id: z.string(),
      partition: z.number().int(),
      // A string rather than an enum in the document: the values are listed in the description
      // (from the Prisma enum, their one declaration), as the published document has always said.
      status: z.string().meta({
        description: `${Object.values(CleanerRunStatus).join(" | ")} (its worker lost the partition mid-pass, e.g. killed: closed when another worker claimed the partition, \`error\` says which)`,
      }),
      startedAt: z.string(),
      finishedAt: z.string().nullable(),
      bytesRead: z.number(),
      bytesWritten: z.number(),
      reclaimedBytes: z.number().nullable().meta({
        description:
          "What the partition shrank by: its closed segments' bytes before the pass minus after (bytesRead − bytesWritten also counts what the pass re-read); null for passes recorded before it was measured",
      }),
      bytesBefore: z.number().nullable().meta({
        description:
          "The bytes of the partition's closed segments when the pass started (segment log files, as the segments endpoint's sizeBytes); null for passes recorded before it was measured",
      }),
      bytesAfter: z.number().nullable().meta({
        description:
          "The same segments' bytes once the pass swapped its output in (appends and rolls during the pass are not counted)",
      }),
      recordsRemoved: z.number().int(),
      tombstonesRemoved: z.number().int(),
      mapUtilisation: z.number().nullable(),
      durationMs: z.number().int().nullable(),
      error: z.string().nullable(),
      trigger: z.string().nullable().meta({
        description: "dirty-ratio | max-compaction-lag | delete-horizon | forced; null until finished",
      }),
      dirtyRatioBefore: z
        .number()
        .nullable()
        .meta({ description: "The partition's dirty ratio the pass saw" }),
      dirtyRatioAfter: z
        .number()
        .nullable()
        .meta({ description: "Its dirty ratio once the pass swapped in" }),
    }),
  ),
});
