import { z } from "zod";
import { topicNameSchema } from "../../services/topic.schema";
import { groupLagSeriesSchema, historyMinutesSchema } from "../consumer-groups/group-lag-history.schema";

export const topicHistoryInput = z.object({
  topic: topicNameSchema,
  minutes: historyMinutesSchema,
});

export const topicHistoryOutput = z.object({
  minutes: z.array(
    z.object({
      at: z.string().meta({ description: "Start of the minute (ISO 8601)" }),
      sizeBytes: z.number(),
      liveBytes: z.number().meta({ description: "Size less the dirty bytes, as the topic list counts them" }),
      producedRecords: z
        .number()
        .nullable()
        .meta({ description: "Records appended since the minute before; null without a sample then" }),
      fetchedRecords: z
        .number()
        .meta({ description: "Records served to readers (REST and Kafka) in the minute" }),
    }),
  ),
  groups: z.array(groupLagSeriesSchema),
});
