import { z } from "zod";

/**
 * Wire shape of the group route: the Kafka consumer groups a worker coordinates for one tenant,
 * read from its memory, where the membership lives (a Kafka DescribeGroups answers from the same
 * place). The worker that holds a group's coordinator lease is the only one that can answer.
 */

export const GROUP_STATES = ["Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead"] as const;

export const groupMemberSchema = z.object({
  memberId: z.string(),
  groupInstanceId: z.string().nullable(),
  clientId: z.string(),
  clientHost: z.string(),
  /**
   * The partitions the member holds, by topic, decoded from its ConsumerProtocolAssignment. Null
   * while the group rebalances (no assignment is in force), or when the group is not a "consumer"
   * group or the bytes do not parse (the member's protocol is its own).
   */
  assignment: z.array(z.object({ topic: z.string(), partitions: z.array(z.number().int()) })).nullable(),
});

export const groupMembershipSchema = z.object({
  groupId: z.string(),
  state: z.enum(GROUP_STATES),
  protocolType: z.string().nullable(),
  protocolName: z.string().nullable(),
  generationId: z.number().int(),
  leaderId: z.string().nullable(),
  members: z.array(groupMemberSchema),
});

export const describeGroupsResponseSchema = z.object({
  workerId: z.string(),
  groups: z.array(groupMembershipSchema),
});

export type GroupMember = z.infer<typeof groupMemberSchema>;
export type GroupMembership = z.infer<typeof groupMembershipSchema>;
export type DescribeGroupsResponse = z.infer<typeof describeGroupsResponseSchema>;
