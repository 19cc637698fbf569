import { topicNameSchema } from "@lastword/api/topic-admin";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { allowed } from "./kafka-authorization";
import { type CatalogPartition, type CatalogTopic, clusterIdOf, type KafkaBroker } from "./kafka-catalog";
import type { KafkaBrokerContext, KafkaSession } from "./kafka-context";
import { latestViewName, latestViewTopicId, viewedTopics } from "./latest-view";

type MetadataRequest = RequestBody<3>;
type MetadataResponse = ResponseInput<3>;
type TopicEntry = NonNullable<MetadataResponse["topics"]>[number];
const NULL_TOPIC_ID = "00000000-0000-0000-0000-000000000000";

/** A topic's entry, or (`view`) its `.latest` view's: the same partitions, leaders and epochs. */
function topicEntry(
  topic: CatalogTopic,
  view: boolean,
  leaderOf: (p: CatalogPartition) => number | null,
): TopicEntry {
  return {
    errorCode: 0,
    name: view ? latestViewName(topic.name) : topic.name,
    topicId: view ? latestViewTopicId(topic.kafkaTopicId) : topic.kafkaTopicId,
    isInternal: false,
    partitions: topic.partitions.map((p) => {
      const leaderId = leaderOf(p);
      return {
        // No live lease: clients wait and ask again (kafkajs retries LEADER_NOT_AVAILABLE).
        errorCode: leaderId === null ? ErrorCode.LEADER_NOT_AVAILABLE : 0,
        partitionIndex: p.index,
        leaderId: leaderId ?? -1,
        leaderEpoch: leaderId === null ? -1 : p.leaderEpoch,
        replicaNodes: leaderId === null ? [] : [leaderId],
        isrNodes: leaderId === null ? [] : [leaderId],
        offlineReplicas: [],
      };
    }),
  };
}

function missing(errorCode: number, name: string | null, topicId = NULL_TOPIC_ID): TopicEntry {
  return { errorCode, name, topicId, isInternal: false, partitions: [] };
}

/**
 * Metadata scoped to the connection's tenant: the brokers are the live workers (identical for every
 * tenant), each partition's leader is its lease owner, and a topic of another tenant is exactly a
 * missing one. Each compacted topic is listed twice: as itself and as its read-only `<topic>.latest`
 * view. Topics are never created here (auto-creation is refused by policy).
 */
export async function handleMetadata(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: MetadataRequest,
): Promise<MetadataResponse> {
  const { tenantId } = session.principal;
  const brokers = withSelf(await ctx.catalog.brokers(), ctx.self());
  const topics = await ctx.catalog.topics(tenantId);
  // This worker never names itself the leader of a partition it no longer hosts: an answer cached
  // (or loaded) just before it handed the partition back would send clients' retries here.
  const self = ctx.self().nodeId;
  const leaderOf = (p: CatalogPartition) => (p.leaderId === self && !ctx.host.slot(p.id) ? null : p.leaderId);
  // Every topic, then each compacted one's view: names and ids a request may ask for.
  const listed = [
    ...topics.map((topic) => ({ topic, view: false })),
    ...viewedTopics(topics).map((topic) => ({ topic, view: true })),
  ].map(({ topic, view }) => ({ topic, view, entry: topicEntry(topic, view, leaderOf) }));
  let entries: TopicEntry[];
  if (request.topics === null) {
    // Every topic the key may see (Kafka lists the topics a principal may DESCRIBE).
    entries = listed.filter((l) => allowed(session, "Metadata", { name: l.entry.name! })).map((l) => l.entry);
  } else {
    entries = request.topics.map((wanted) => {
      const byName = wanted.name !== null && wanted.name !== undefined;
      // A name the key may not describe is refused whether or not it exists, as Kafka refuses it.
      if (byName && !allowed(session, "Metadata", { name: wanted.name! }))
        return missing(ErrorCode.TOPIC_AUTHORIZATION_FAILED, wanted.name!);
      const found = byName
        ? listed.find((l) => l.entry.name === wanted.name)
        : listed.find((l) => l.entry.topicId === wanted.topicId);
      if (!found) {
        // By id alone (v10+); a name, even "", is answered under that name (not nullable before v12).
        if (!byName) return missing(ErrorCode.UNKNOWN_TOPIC_ID, null, wanted.topicId);
        // A name no topic can have is INVALID_TOPIC_EXCEPTION, as Kafka answers (not retriable;
        // UNKNOWN_TOPIC_OR_PARTITION is, and clients would retry it until their timeout).
        const valid = topicNameSchema.safeParse(wanted.name).success;
        return missing(
          valid ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION,
          wanted.name,
        );
      }
      const { name, topicId } = found.entry;
      if (!allowed(session, "Metadata", { name: name! }))
        return missing(ErrorCode.TOPIC_AUTHORIZATION_FAILED, name ?? null, topicId);
      return found.entry;
    });
  }
  return {
    throttleTimeMs: 0,
    brokers: brokers.map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: null })),
    clusterId: clusterIdOf(tenantId),
    controllerId: brokers[0]?.nodeId ?? -1,
    topics: entries,
  };
}

/** The live brokers; a worker that just started may answer before its own row counts as live. */
export function withSelf(brokers: KafkaBroker[], self: KafkaBroker): KafkaBroker[] {
  if (brokers.some((b) => b.nodeId === self.nodeId)) return brokers;
  return [...brokers, self].sort((a, b) => a.nodeId - b.nodeId);
}
