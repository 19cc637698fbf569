import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { allowed, refusedCode } from "../kafka-authorization";
import type { KafkaHandler } from "../kafka-context";
import type { OffsetToStore } from "./group-offsets.repository";
import { perRequestedPartition, writeOffsets } from "./offset-requests";

/** Kafka's offset.metadata.max.bytes. */
export const MAX_OFFSET_METADATA_CHARS = 4096;

/** An OffsetCommit answer that gives every partition of the request `errorCode`. */
export function offsetCommitFailed(request: RequestBody<8>, errorCode: number): ResponseInput<8> {
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
    })),
  };
}

/**
 * OffsetCommit v2–v8 into the shared ConsumerGroupOffset rows. A member's commit must carry the
 * group's current generation; an empty member id with generation -1 is an admin (or
 * simple-consumer) commit, allowed while the group has no members, as Kafka's. A member records its
 * own progress with groups:read (consuming, as Kafka's Group READ); setting a group's offsets from
 * outside it is what groups:write is for, as the REST commit and reset.
 */
export const handleOffsetCommit: KafkaHandler<8> = async (ctx, session, request) => {
  const { tenantId } = session.principal;
  const everyone = (errorCode: number) => offsetCommitFailed(request, errorCode);
  const generation = request.generationIdOrMemberEpoch;
  const asMember = request.memberId !== "" && generation >= 0;
  const act = asMember ? "OffsetCommit" : "OffsetCommitOutsideGeneration";
  if (!allowed(session, act, { name: request.groupId })) return everyone(refusedCode(act));
  // Kafka's Topic READ on each topic whose offsets are set: refused partitions only.
  const unreadable = new Set(
    request.topics.filter((t) => !allowed(session, act, { topics: [t.name] })).map((t) => t.name),
  );
  const lease = ctx.groups.lease(tenantId, request.groupId);
  if (!lease) return everyone(ErrorCode.NOT_COORDINATOR);
  const group = ctx.groups.existing(tenantId, request.groupId);
  const check = group
    ? group.commitCheck(request.memberId, generation, request.groupInstanceId ?? null)
    : generation < 0
      ? 0
      : ErrorCode.ILLEGAL_GENERATION;
  if (check !== 0) return everyone(check);

  const toStore: OffsetToStore[] = [];
  const topics = await perRequestedPartition(ctx, tenantId, request.topics, (topicId, name, p) => {
    if (unreadable.has(name)) return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    const metadata = p.committedMetadata ?? null;
    if (metadata !== null && metadata.length > MAX_OFFSET_METADATA_CHARS) {
      return ErrorCode.OFFSET_METADATA_TOO_LARGE;
    }
    toStore.push({ topicId, partitionIndex: p.partitionIndex, offset: BigInt(p.committedOffset), metadata });
    return 0;
  });
  await ctx.testFaults?.beforeOffsetWrite();
  const write = () => ctx.groupOffsets.commit(lease, toStore);
  const written = await writeOffsets(ctx, request.groupId, "offset commit", write);
  if (written !== 0) return everyone(written);
  return { throttleTimeMs: 0, topics };
};
