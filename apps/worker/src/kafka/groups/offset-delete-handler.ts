import { ErrorCode, type ResponseInput } from "@lastword/kafka-protocol";
import { allowed, refusedCode } from "../kafka-authorization";
import type { KafkaHandler } from "../kafka-context";
import { latestViewName } from "../latest-view";
import { subscribedTopics } from "./consumer-subscription";
import type { OffsetToDelete } from "./group-offsets.repository";
import { perRequestedPartition, writeOffsets } from "./offset-requests";

/**
 * OffsetDelete (v0) on the shared ConsumerGroupOffset rows, within the session's tenant. As Kafka's
 * coordinator: a group with members may not lose the offsets of a topic one of them subscribes to
 * (GROUP_SUBSCRIBED_TO_TOPIC for those partitions, the others are deleted); a non-consumer group
 * with members keeps everything (NON_EMPTY_GROUP); a group with neither members nor offsets is
 * GROUP_ID_NOT_FOUND. A partition of a topic the tenant does not have is UNKNOWN_TOPIC_OR_PARTITION.
 */
export const handleOffsetDelete: KafkaHandler<47> = async (ctx, session, request) => {
  const { tenantId } = session.principal;
  const refuse = (errorCode: number): ResponseInput<47> => ({ errorCode, throttleTimeMs: 0, topics: [] });
  if (!allowed(session, "OffsetDelete", { name: request.groupId }))
    return refuse(refusedCode("OffsetDelete"));
  if (request.groupId === "") return refuse(ErrorCode.INVALID_GROUP_ID);
  const lease = ctx.groups.lease(tenantId, request.groupId);
  if (!lease) return refuse(ErrorCode.NOT_COORDINATOR);
  const group = ctx.groups.existing(tenantId, request.groupId);
  const members = group?.members() ?? [];
  if (members.length === 0 && !(await ctx.groupOffsets.exists(tenantId, request.groupId)))
    return refuse(ErrorCode.GROUP_ID_NOT_FOUND);
  if (members.length > 0 && group?.protocolType !== "consumer") return refuse(ErrorCode.NON_EMPTY_GROUP);
  // Every protocol a member offered names its subscription; any of them counts as reading the topic.
  const subscribed = new Set(
    members.flatMap((m) => m.protocols.flatMap((p) => subscribedTopics(p.metadata))),
  );

  const toDelete: OffsetToDelete[] = [];
  const topics = await perRequestedPartition(ctx, tenantId, request.topics, (topicId, name, p) => {
    // Kafka's Topic READ on each topic whose offsets go.
    if (!allowed(session, "OffsetDelete", { topics: [name] })) return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    // A view's offsets are its topic's: deleting them on either name, while a member reads
    // either, is the same act.
    if (subscribed.has(name) || subscribed.has(latestViewName(name)))
      return ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC;
    toDelete.push({ topicId, partitionIndex: p.partitionIndex });
    return 0;
  });
  const write = () => ctx.groupOffsets.deleteOffsets(lease, toDelete);
  const written = await writeOffsets(ctx, request.groupId, "offset delete", write);
  if (written !== 0) return refuse(written);
  return { errorCode: 0, throttleTimeMs: 0, topics };
};
