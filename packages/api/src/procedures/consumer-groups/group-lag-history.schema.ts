import { z } from "zod";

/**
 * The window of a minute-sampled history: the topic history reads the same per-minute samples
 * (and this group lag series with them), so both routes take one window with one bound.
 */
export const historyMinutesSchema = z
  .number()
  .int()
  .min(2)
  .max(24 * 60)
  .default(60)
  .meta({ description: "How far back, in minutes (samples are kept for a day)" });

export const groupLagHistoryInput = z.object({ minutes: historyMinutesSchema });

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
