import { hasScope } from "@lastword/api/key-auth";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";
import { latestViewName, readableTopic } from "../latest-view";
import { subscribedTopics } from "./consumer-subscription";
import type { OffsetToDelete } from "./group-offsets.repository";

/**
 * OffsetDelete (v0) on the shared ConsumerGroupOffset rows, within the session's tenant. As Kafka's
 * coordinator: a group with members may not lose the offsets of a topic one of them subscribes to
 * (GROUP_SUBSCRIBED_TO_TOPIC for those partitions, the others are deleted); a non-consumer group
 * with members keeps everything (NON_EMPTY_GROUP); a group with neither members nor offsets is
 * GROUP_ID_NOT_FOUND. A partition of a topic the tenant does not have is UNKNOWN_TOPIC_OR_PARTITION.
 */
export async function handleOffsetDelete(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: RequestBody<47>,
): Promise<ResponseInput<47>> {
  const { tenantId, scopes } = session.principal;
  const refuse = (errorCode: number): ResponseInput<47> => ({ errorCode, throttleTimeMs: 0, topics: [] });
  if (!hasScope(scopes, "groups:write")) return refuse(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  if (request.groupId === "") return refuse(ErrorCode.INVALID_GROUP_ID);
  if (!ctx.groups.coordinates(tenantId, request.groupId)) return refuse(ErrorCode.NOT_COORDINATOR);
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
  const topics = await Promise.all(
    request.topics.map(async (t) => {
      // A view's offsets are its topic's: deleting them on either name, while a member reads
      // either, is the same act.
      const topic = (await readableTopic(ctx.catalog, tenantId, t.name))?.topic;
      const names = topic ? [topic.name, latestViewName(topic.name)] : [];
      return {
        name: t.name,
        partitions: t.partitions.map(({ partitionIndex }) => {
          if (!topic?.partitions.some((p) => p.index === partitionIndex))
            return { partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
          if (names.some((name) => subscribed.has(name)))
            return { partitionIndex, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
          toDelete.push({ topicId: topic.id, partitionIndex });
          return { partitionIndex, errorCode: 0 };
        }),
      };
    }),
  );
  try {
    await ctx.groupOffsets.deleteOffsets(tenantId, request.groupId, toDelete);
  } catch (error) {
    ctx.logger.warn({ err: error, groupId: request.groupId }, "offset delete failed");
    return refuse(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
  return { errorCode: 0, throttleTimeMs: 0, topics };
}
