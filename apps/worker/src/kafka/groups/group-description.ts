import type { GroupMember, GroupMembership } from "@lastword/dataplane";
import { decodeConsumerAssignment, KafkaProtocolError } from "@lastword/kafka-protocol";
import type { GroupState } from "./group-state";

type Member = ReturnType<GroupState["members"]>[number];

/**
 * One group's membership as the console shows it (the data plane's group route): what a Kafka
 * DescribeGroups answers, with each member's assignment decoded. Assignments are in force only
 * while the group is Stable; during a rebalance the members are listed without one.
 */
export function describeGroup(group: GroupState): GroupMembership {
  return {
    groupId: group.groupId,
    state: group.state,
    protocolType: group.protocolType,
    protocolName: group.protocolName,
    generationId: group.generationId,
    leaderId: group.leaderId,
    members: group.members().map((m) => describeMember(group, m)),
  };
}

function describeMember(group: GroupState, member: Member): GroupMember {
  const assigned = group.state === "Stable" && group.protocolType === "consumer";
  return {
    memberId: member.memberId,
    groupInstanceId: member.groupInstanceId,
    clientId: member.clientId,
    clientHost: member.clientHost,
    assignment: assigned ? consumerAssignment(member.assignment) : null,
  };
}

/** Sorted partitions per topic; null when the bytes are not a consumer assignment we can read. */
function consumerAssignment(bytes: Buffer): GroupMember["assignment"] {
  try {
    return decodeConsumerAssignment(bytes).topics.map((t) => ({
      topic: t.topic,
      partitions: [...t.partitions].sort((a, b) => a - b),
    }));
  } catch (error) {
    if (error instanceof KafkaProtocolError) return null;
    throw error;
  }
}
