import { groupMembershipSchema } from "@lastword/dataplane";
import { z } from "zod";
import { topicNameSchema } from "../../services/topic.schema";
import { committedOffsetSchema, groupNameSchema } from "./consumer-group.schema";

const partitionLagSchema = z.object({
  topic: z.string(),
  partition: z.number().int(),
  offset: committedOffsetSchema,
  logStartOffset: z.number().int().nullable(),
  logEndOffset: z.number().int().nullable(),
  lag: z.number().int().nullable().meta({
    description:
      "Offsets behind the log end (gaps count); null when the partition is unavailable or there is no committed position",
  }),
  lagMs: z.number().int().nullable().meta({ description: "Age of the next unread record; 0 when caught up" }),
});

const groupLagSchema = z
  .object({
    group: z.string(),
    partitions: z.array(partitionLagSchema),
    totalLag: z.number().int(),
    maxLagMs: z.number().int(),
  })
  .meta({
    example: {
      group: "billing-service",
      partitions: [
        {
          topic: "user-profiles",
          partition: 0,
          offset: 40,
          logStartOffset: 0,
          logEndOffset: 44,
          lag: 4,
          lagMs: 480_000,
        },
      ],
      totalLag: 4,
      maxLagMs: 480_000,
    },
  });

export const groupLagInput = z.object({ group: groupNameSchema });
export const groupLagOutput = groupLagSchema;

export const resetOffsetsInput = z.object({
  group: groupNameSchema,
  topic: topicNameSchema,
  to: z.enum(["earliest", "latest", "timestamp", "offset"]).meta({ example: "timestamp" }),
  timestamp: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "Epoch ms, for to=timestamp", example: 1767605400000 }),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "For to=offset: every named partition moves there, kept within its log" }),
  partitions: z.array(z.number().int().min(0)).min(1).optional().meta({ description: "Default: all" }),
  dryRun: z
    .boolean()
    .optional()
    .meta({ description: "Answer the new positions without committing them", example: true }),
});

export const resetOffsetsOutput = z
  .object({
    group: z.string(),
    dryRun: z.boolean(),
    offsets: z.array(
      z.object({
        topic: z.string(),
        partition: z.number().int(),
        offset: z.number().int(),
        previousOffset: z
          .number()
          .int()
          .nullable()
          .meta({ description: "The committed position before; null: none" }),
        lagAfter: z.number().int().meta({ description: "Offsets behind the log end at the new position" }),
      }),
    ),
  })
  .meta({
    example: {
      group: "billing-service",
      dryRun: true,
      offsets: [{ topic: "user-profiles", partition: 0, offset: 12, previousOffset: 40, lagAfter: 32 }],
    },
  });

export const listTopicGroupsInput = z.object({ topic: topicNameSchema });
export const listTopicGroupsOutput = z.object({ topic: z.string(), groups: z.array(groupLagSchema) });

export const listGroupsInput = z
  .object({
    group: groupNameSchema.optional().meta({ description: "Only this group (its page); none: every group" }),
  })
  .optional();
export const listGroupsOutput = z.object({
  groups: z.array(
    z.object({
      group: z.string(),
      protocol: z
        .enum(["kafka", "rest"])
        .meta({ description: "kafka: a Kafka coordinator lease exists for it" }),
      coordinator: z
        .object({ workerId: z.string().nullable(), live: z.boolean() })
        .nullable()
        .meta({ description: "The worker whose lease coordinates the group (Kafka groups)" }),
      membership: groupMembershipSchema.omit({ groupId: true }).nullable().meta({
        description:
          "A Kafka group's state, protocol, generation and members with their assigned partitions, from its coordinator's memory; null for REST groups and when the coordinator cannot say",
      }),
      membershipUnavailable: z
        .string()
        .nullable()
        .meta({ description: "Why a Kafka group's membership could not be read" }),
      totalLag: z.number().int(),
      maxLagMs: z.number().int(),
      lastCommitAt: z.string().nullable(),
      topics: z.array(
        z.object({
          topic: z.string(),
          deleteRetentionMs: z.number().int(),
          partitions: z.array(partitionLagSchema),
        }),
      ),
    }),
  ),
});

export const deleteGroupInput = z.object({ group: groupNameSchema });
export const deleteGroupOutput = z.object({ group: z.string(), deleted: z.literal(true) });
