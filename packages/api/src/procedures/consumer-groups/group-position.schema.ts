import { z } from "zod";
import { topicNameSchema } from "../topics/topic.schema";
import { groupNameSchema } from "./consumer-group.schema";

const partitionLagSchema = z.object({
  topic: z.string(),
  partition: z.number().int(),
  offset: z.number().int().meta({ description: "Committed: the next offset the group reads" }),
  logStartOffset: z.number().int().nullable(),
  logEndOffset: z.number().int().nullable(),
  lag: z.number().int().nullable().meta({ description: "Offsets behind the log end (gaps count)" }),
  lagMs: z.number().int().nullable().meta({ description: "Age of the next unread record; 0 when caught up" }),
});

const groupLagSchema = z.object({
  group: z.string(),
  partitions: z.array(partitionLagSchema),
  totalLag: z.number().int(),
  maxLagMs: z.number().int(),
});

export const groupLagInput = z.object({ group: groupNameSchema });
export const groupLagOutput = groupLagSchema;

export const resetOffsetsInput = z.object({
  group: groupNameSchema,
  topic: topicNameSchema,
  to: z.enum(["earliest", "latest", "timestamp"]),
  timestamp: z.number().int().min(0).optional().meta({ description: "Epoch ms, for to=timestamp" }),
  partitions: z.array(z.number().int().min(0)).min(1).optional().meta({ description: "Default: all" }),
});

export const resetOffsetsOutput = z.object({
  group: z.string(),
  offsets: z.array(z.object({ topic: z.string(), partition: z.number().int(), offset: z.number().int() })),
});

export const listTopicGroupsInput = z.object({ topic: topicNameSchema });
export const listTopicGroupsOutput = z.object({ topic: z.string(), groups: z.array(groupLagSchema) });
