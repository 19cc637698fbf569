import { z } from "zod";

export const groupLagHistoryInput = z.object({
  minutes: z
    .number()
    .int()
    .min(2)
    .max(24 * 60)
    .default(60)
    .meta({ description: "How far back, in minutes (samples are kept for a day)" }),
});

export const groupLagSeriesSchema = z.object({
  group: z.string(),
  lag: z
    .array(
      z.object({
        at: z.string().meta({ description: "Start of the minute (ISO 8601)" }),
        records: z
          .number()
          .meta({ description: "Records behind the end, over every partition the group committed on" }),
      }),
    )
    .meta({ description: "One point a minute, oldest first, as the partitions' owners sampled it" }),
});

export const groupLagHistoryOutput = z.object({ groups: z.array(groupLagSeriesSchema) });
