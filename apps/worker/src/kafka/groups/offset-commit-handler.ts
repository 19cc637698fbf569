import { hasScope } from "@lastword/api/key-auth";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";
import { readableTopic } from "../latest-view";
import type { OffsetToStore } from "./group-offsets.repository";

/** Kafka's offset.metadata.max.bytes. */
export const MAX_OFFSET_METADATA_CHARS = 4096;

/**
 * OffsetCommit v2–v8 into the shared ConsumerGroupOffset rows. A member's commit must carry the
 * group's current generation; an empty member id with generation -1 is an admin (or
 * simple-consumer) commit, allowed while the group has no members, as Kafka's. A member records its
 * own progress with groups:read (consuming, as Kafka's Group READ); setting a group's offsets from
 * outside it is what groups:write is for, as the REST commit and reset.
 */
export async function handleOffsetCommit(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: RequestBody<8>,
): Promise<ResponseInput<8>> {
  const { tenantId } = session.principal;
  const everyone = (errorCode: number): ResponseInput<8> => ({
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
    })),
  });
  const generation = request.generationIdOrMemberEpoch;
  const asMember = request.memberId !== "" && generation >= 0;
  if (!hasScope(session.principal.scopes, asMember ? "groups:read" : "groups:write"))
    return everyone(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  if (!ctx.groups.coordinates(tenantId, request.groupId)) return everyone(ErrorCode.NOT_COORDINATOR);
  const group = ctx.groups.existing(tenantId, request.groupId);
  const check = group
    ? group.commitCheck(request.memberId, generation, request.groupInstanceId ?? null)
    : generation < 0
      ? 0
      : ErrorCode.ILLEGAL_GENERATION;
  if (check !== 0) return everyone(check);

  const toStore: OffsetToStore[] = [];
  const topics = await Promise.all(
    request.topics.map(async (t) => {
      // An offset committed on a view is stored as the topic's: it is one of the topic's offsets.
      const topic = (await readableTopic(ctx.catalog, tenantId, t.name))?.topic;
      return {
        name: t.name,
        partitions: t.partitions.map((p) => {
          const partition = topic?.partitions.find((x) => x.index === p.partitionIndex);
          if (!topic || !partition)
            return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
          const metadata = p.committedMetadata ?? null;
          if (metadata !== null && metadata.length > MAX_OFFSET_METADATA_CHARS) {
            return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE };
          }
          toStore.push({
            topicId: topic.id,
            partitionIndex: p.partitionIndex,
            offset: BigInt(p.committedOffset),
            metadata,
          });
          return { partitionIndex: p.partitionIndex, errorCode: 0 };
        }),
      };
    }),
  );
  try {
    await ctx.groupOffsets.commit(tenantId, request.groupId, toStore);
  } catch (error) {
    ctx.logger.warn({ err: error, groupId: request.groupId }, "offset commit failed");
    return everyone(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
  return { throttleTimeMs: 0, topics };
}
