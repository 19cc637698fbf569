import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { MAX_OFFSET_METADATA_CHARS } from "../groups/offset-commit-handler";
import { perRequestedPartition } from "../groups/offset-requests";
import { allowed, refusedCode } from "../kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";
import { transactionalIdRefused, versioned } from "./txn-handlers";
import type { PendingOffset } from "./txn-state.repository";

type TxnOffsetCommitRequest = RequestBody<28>;
type TxnOffsetCommitResponse = ResponseInput<28>;

/** KIP-588 for TxnOffsetCommit: PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH before. */
const PRODUCER_FENCED_SINCE = 2;

function everyPartition(request: TxnOffsetCommitRequest, errorCode: number): TxnOffsetCommitResponse {
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
    })),
  };
}

/**
 * TxnOffsetCommit v0–v3, on the group's coordinator: the offsets are held on the transaction's
 * row (pending) and reach the group's committed offsets only when the transaction commits; an
 * abort drops them. The transaction must be open under the request's producer id and epoch. From
 * v3 (KIP-447) a member's generation is checked as OffsetCommit checks it.
 */
export async function handleTxnOffsetCommit(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: TxnOffsetCommitRequest,
): Promise<TxnOffsetCommitResponse> {
  const everyone = (errorCode: number) => everyPartition(request, errorCode);
  if (!allowed(session, "TxnOffsetCommit", { name: request.groupId })) {
    return everyone(refusedCode("TxnOffsetCommit"));
  }
  if (transactionalIdRefused(session)) return everyone(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const unreadable = new Set(
    request.topics
      .filter((t) => !allowed(session, "TxnOffsetCommit", { topics: [t.name] }))
      .map((t) => t.name),
  );
  const { tenantId } = session.principal;
  if (!ctx.groups.coordinates(tenantId, request.groupId)) return everyone(ErrorCode.NOT_COORDINATOR);
  const group = ctx.groups.existing(tenantId, request.groupId);
  if (group && request.memberId !== "" && request.generationId >= 0) {
    const check = group.commitCheck(request.memberId, request.generationId, request.groupInstanceId ?? null);
    if (check !== 0) return everyone(check);
  }
  const pending: PendingOffset[] = [];
  const topics = await perRequestedPartition(ctx, tenantId, request.topics, (topicId, name, p) => {
    if (unreadable.has(name)) return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    const metadata = p.committedMetadata ?? null;
    if (metadata !== null && metadata.length > MAX_OFFSET_METADATA_CHARS)
      return ErrorCode.OFFSET_METADATA_TOO_LARGE;
    pending.push({
      groupId: request.groupId,
      topicId,
      partitionIndex: p.partitionIndex,
      offset: String(p.committedOffset),
      metadata,
    });
    return 0;
  });
  const producerId = Number(request.producerId);
  let refused = 0;
  try {
    const row = await ctx.txnStates.addPendingOffsets(tenantId, request.transactionalId, (found) => {
      if (found.producerId !== producerId) refused = ErrorCode.INVALID_PRODUCER_ID_MAPPING;
      else if (found.producerEpoch !== request.producerEpoch)
        refused = versioned("fenced", version, PRODUCER_FENCED_SINCE);
      else if (found.state !== "Ongoing") refused = ErrorCode.INVALID_TXN_STATE;
      return refused === 0 ? pending : null;
    });
    if (!row) return everyone(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  } catch (error) {
    ctx.logger.warn({ err: error, groupId: request.groupId }, "transactional offset commit failed");
    return everyone(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
  if (refused !== 0) return everyone(refused);
  return { throttleTimeMs: 0, topics };
}
