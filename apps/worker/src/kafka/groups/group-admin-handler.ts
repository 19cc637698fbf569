import { ErrorCode } from "@lastword/kafka-protocol";
import { allowed, refusedCode, visible } from "../kafka-authorization";
import type { KafkaHandler } from "../kafka-context";
import { writeOffsets } from "./offset-requests";

// DescribeGroups, ListGroups and DeleteGroups, all within the session's tenant.

export const handleDescribeGroups: KafkaHandler<15> = async (ctx, session, request) => {
  const { tenantId } = session.principal;
  const groups = await Promise.all(
    request.groups.map(async (groupId) => {
      const base = {
        groupId,
        groupState: "Dead",
        protocolType: "",
        protocolData: "",
        members: [],
        authorizedOperations: -2147483648,
      };
      if (!allowed(session, "DescribeGroups", { name: groupId }))
        return { ...base, errorCode: refusedCode("DescribeGroups") };
      if (!ctx.groups.coordinates(tenantId, groupId))
        return { ...base, errorCode: ErrorCode.NOT_COORDINATOR };
      const group = ctx.groups.existing(tenantId, groupId);
      if (!group || group.state === "Empty") {
        // A group known only by its committed offsets (REST, or every member gone) is Empty.
        const stored = group !== null || (await ctx.groupOffsets.exists(tenantId, groupId));
        return {
          ...base,
          errorCode: 0,
          groupState: stored ? "Empty" : "Dead",
          protocolType: group?.protocolType ?? "",
        };
      }
      const stable = group.state === "Stable";
      return {
        ...base,
        errorCode: 0,
        groupState: group.state,
        protocolType: group.protocolType ?? "",
        protocolData: stable ? (group.protocolName ?? "") : "",
        members: group.members().map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: stable ? group.metadataOf(m) : Buffer.alloc(0),
          memberAssignment: stable ? m.assignment : Buffer.alloc(0),
        })),
      };
    }),
  );
  return { throttleTimeMs: 0, groups };
};

/**
 * Each broker lists the groups it coordinates (clients ask every broker and merge the answers);
 * groups no live lease covers (offsets committed over REST only) are listed by the broker with the
 * lowest node id, so every group appears exactly once.
 */
export const handleListGroups: KafkaHandler<16> = async (ctx, session, request) => {
  const { tenantId } = session.principal;
  if (!allowed(session, "ListGroups"))
    return { throttleTimeMs: 0, errorCode: refusedCode("ListGroups"), groups: [] };
  const [stored, brokers] = await Promise.all([ctx.groupOffsets.names(tenantId), ctx.catalog.brokers()]);
  const storedSet = new Set(stored);
  const listed = new Map<string, { groupId: string; protocolType: string; groupState: string }>();
  for (const groupId of ctx.groups.heldGroupIds(tenantId)) {
    const group = ctx.groups.existing(tenantId, groupId);
    if (!storedSet.has(groupId) && (!group || group.memberCount === 0)) continue;
    listed.set(groupId, {
      groupId,
      protocolType: group?.protocolType ?? "",
      groupState: group?.state ?? "Empty",
    });
  }
  const self = ctx.self();
  if (brokers.length > 0 && brokers[0]!.nodeId === self.nodeId) {
    for (const groupId of await ctx.groupLeases.unleasedGroupNames(tenantId)) {
      if (!listed.has(groupId)) listed.set(groupId, { groupId, protocolType: "", groupState: "Empty" });
    }
  }
  const states = new Set(request.statesFilter.map((s) => s.toLowerCase()));
  // The groups the key may see (Kafka lists the groups a principal may DESCRIBE).
  const groups = [...listed.values()].filter(
    (g) =>
      (states.size === 0 || states.has(g.groupState.toLowerCase())) && visible(session, "group", g.groupId),
  );
  return { throttleTimeMs: 0, errorCode: 0, groups };
};

export const handleDeleteGroups: KafkaHandler<42> = async (ctx, session, request) => {
  const { tenantId } = session.principal;
  const results = await Promise.all(
    request.groupsNames.map(async (groupId) => {
      if (!allowed(session, "DeleteGroups", { name: groupId }))
        return { groupId, errorCode: refusedCode("DeleteGroups") };
      const lease = ctx.groups.lease(tenantId, groupId);
      if (!lease) return { groupId, errorCode: ErrorCode.NOT_COORDINATOR };
      const group = ctx.groups.existing(tenantId, groupId);
      if (group && group.memberCount > 0) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP };
      let deleted = false;
      const written = await writeOffsets(ctx, groupId, "group delete", async () => {
        deleted = await ctx.groupOffsets.delete(lease);
      });
      if (written !== 0) return { groupId, errorCode: written };
      ctx.groups.forget(tenantId, groupId);
      return { groupId, errorCode: deleted || group ? 0 : ErrorCode.GROUP_ID_NOT_FOUND };
    }),
  );
  return { throttleTimeMs: 0, results };
};
