import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { allowed, refusedCode } from "../kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";
import type { GroupState } from "./group-state";

// JoinGroup, SyncGroup, Heartbeat and LeaveGroup: the coordinator check, then the group's state
// machine (group-state.ts) does the rest.

/**
 * The group when this worker coordinates it and the key may take part, else the error code.
 * Taking part is consuming (Kafka's Group READ), so a read-only key's consumer can join.
 */
function coordinated(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  act: "JoinGroup" | "JoinGroupTakeover" | "SyncGroup" | "Heartbeat" | "LeaveGroup",
  groupId: string,
): GroupState | number {
  if (!allowed(session, act, { name: groupId })) return refusedCode(act);
  if (groupId === "") return ErrorCode.INVALID_GROUP_ID;
  return ctx.groups.group(session.principal.tenantId, groupId) ?? ErrorCode.NOT_COORDINATOR;
}

/**
 * A join is consuming (groups:read), except the first Kafka membership of a group whose offsets
 * were set over REST (no Kafka generation yet, offsets stored): that takes the group over from its
 * REST consumers, which needs groups:write, as REST's own commits do.
 */
async function joinable(ctx: KafkaBrokerContext, session: KafkaSession, groupId: string) {
  const { tenantId } = session.principal;
  // The coordinator's state carries the last generation its lease recorded, so a Kafka group that
  // moved or restarted is known as one (not coordinated here: the join is answered NOT_COORDINATOR).
  const known = groupId === "" ? null : ctx.groups.group(tenantId, groupId);
  const takeover =
    known !== null &&
    known.generationId === 0 &&
    known.memberCount === 0 &&
    (await ctx.groupOffsets.exists(tenantId, groupId));
  return coordinated(ctx, session, takeover ? "JoinGroupTakeover" : "JoinGroup", groupId);
}

export async function handleJoinGroup(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: RequestBody<11>,
): Promise<ResponseInput<11>> {
  const group = await joinable(ctx, session, request.groupId);
  if (typeof group === "number") {
    return {
      throttleTimeMs: 0,
      errorCode: group,
      generationId: -1,
      protocolName: version >= 7 ? null : "",
      leader: "",
      memberId: request.memberId,
      members: [],
    };
  }
  const result = await group.join({
    memberId: request.memberId,
    groupInstanceId: request.groupInstanceId ?? null,
    clientId: session.clientId ?? "",
    clientHost: session.clientHost,
    sessionTimeoutMs: request.sessionTimeoutMs,
    rebalanceTimeoutMs: request.rebalanceTimeoutMs,
    protocolType: request.protocolType,
    protocols: request.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
    requireKnownMemberId: version >= 4,
  });
  // Before v7 the protocol name is not nullable: an error answers it empty.
  return { throttleTimeMs: 0, ...result, protocolName: result.protocolName ?? (version >= 7 ? null : "") };
}

export async function handleSyncGroup(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: RequestBody<14>,
): Promise<ResponseInput<14>> {
  const group = coordinated(ctx, session, "SyncGroup", request.groupId);
  if (typeof group === "number") return { throttleTimeMs: 0, errorCode: group, assignment: Buffer.alloc(0) };
  if (
    (request.protocolType != null && request.protocolType !== group.protocolType) ||
    (request.protocolName != null &&
      group.protocolName !== null &&
      request.protocolName !== group.protocolName)
  ) {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
      assignment: Buffer.alloc(0),
    };
  }
  const assignments = request.assignments.map((a) => ({
    memberId: a.memberId,
    assignment: Buffer.from(a.assignment),
  }));
  const result = await group.sync(
    request.memberId,
    request.generationId,
    assignments,
    request.groupInstanceId ?? null,
  );
  return { throttleTimeMs: 0, ...result };
}

export function handleHeartbeat(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: RequestBody<12>,
): ResponseInput<12> {
  const group = coordinated(ctx, session, "Heartbeat", request.groupId);
  if (typeof group === "number") return { throttleTimeMs: 0, errorCode: group };
  return {
    throttleTimeMs: 0,
    errorCode: group.heartbeat(request.memberId, request.generationId, request.groupInstanceId ?? null),
  };
}

export function handleLeaveGroup(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: RequestBody<13>,
): ResponseInput<13> {
  const group = coordinated(ctx, session, "LeaveGroup", request.groupId);
  if (typeof group === "number") return { throttleTimeMs: 0, errorCode: group, members: [] };
  if (version < 3) return { throttleTimeMs: 0, errorCode: group.leave(request.memberId) };
  const members = request.members.map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId ?? null,
    errorCode: group.leave(m.memberId, m.groupInstanceId ?? null),
  }));
  return { throttleTimeMs: 0, errorCode: 0, members };
}
