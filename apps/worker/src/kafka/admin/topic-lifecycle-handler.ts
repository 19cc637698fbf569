import {
  apiKeyIdentity,
  createTopic,
  createTopicInput,
  deleteTopic,
  describeConfigs,
  parseAdminInput,
  storedConfigs,
} from "@lastword/api/topic-admin";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import type { KafkaBrokerContext, KafkaHandler, KafkaSession } from "../kafka-context";
import { viewWriteRefusal } from "../latest-view";
import { withSelf } from "../metadata-handler";
import { type AdminOutcome, actRefused, adminErrorOf, OK, outcomeOf } from "./admin-errors";
import { CONFIG_SOURCE } from "./config-entries";
import { leadersReady } from "./topic-leaders";

type CreatableTopic = RequestBody<19>["topics"][number];
type CreatedTopic = NonNullable<ResponseInput<19>["topics"]>[number];
type DeleteTopicsRequest = RequestBody<20>;
type DeleteTopicsResponse = ResponseInput<20>;
type DeletedTopic = NonNullable<DeleteTopicsResponse["responses"]>[number];

export const NULL_TOPIC_ID = "00000000-0000-0000-0000-000000000000";

/**
 * Why a replication factor other than 1 is refused: durability is the service's, not a topic's
 * (each partition has one owner at a time, and Metadata lists it as the only replica).
 */
export const REPLICATION_FACTOR_REFUSAL =
  "Replication is the service's own durability, not a topic setting: replicationFactor must be -1 (the default) or 1";

const createInputCode = (path: string): number => {
  if (path === "name") return ErrorCode.INVALID_TOPIC_EXCEPTION;
  if (path === "partitions") return ErrorCode.INVALID_PARTITIONS;
  if (path.startsWith("configs")) return ErrorCode.INVALID_CONFIG;
  return ErrorCode.INVALID_REQUEST;
};

function duplicates(names: readonly (string | null)[]): Set<string | null> {
  const seen = new Set<string | null>();
  const twice = new Set<string | null>();
  for (const name of names) (seen.has(name) ? twice : seen).add(name);
  return twice;
}

/**
 * A manual replica assignment, checked as Kafka checks one: instead of a partition count and
 * replication factor, partitions 0…n−1 each once, each on one broker of this cluster (one replica
 * per partition: the service keeps durability itself). Answers the partition count; the service
 * still places the partitions on its workers itself (a broker named is not pinned).
 */
function assignedPartitions(topic: CreatableTopic, brokerIds: ReadonlySet<number>): number | AdminOutcome {
  if (topic.numPartitions !== -1 || topic.replicationFactor !== -1) {
    return {
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage:
        "A replica assignment replaces numPartitions and replicationFactor: both must be -1 with it.",
    };
  }
  const indexes = topic.assignments.map((a) => a.partitionIndex).sort((a, b) => a - b);
  if (indexes.some((index, i) => index !== i)) {
    return {
      errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      errorMessage: `A replica assignment must name partitions 0 to ${indexes.length - 1} once each, got ${indexes.join(", ")}.`,
    };
  }
  for (const { partitionIndex, brokerIds: replicas } of topic.assignments) {
    const [broker] = replicas;
    if (replicas.length !== 1 || broker === undefined || !brokerIds.has(broker)) {
      return {
        errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        errorMessage: `Partition ${partitionIndex} must have exactly one replica, on one of this cluster's brokers (${[...brokerIds].join(", ")}); got [${replicas.join(", ")}].`,
      };
    }
  }
  return topic.assignments.length;
}

/** Kafka's CreateTopics request fields as the REST create input, or why they cannot be one. */
function restInput(
  topic: CreatableTopic,
  validateOnly: boolean,
  brokerIds: ReadonlySet<number>,
): { input: object } | { refused: AdminOutcome } {
  const assigned = topic.assignments.length > 0 ? assignedPartitions(topic, brokerIds) : null;
  if (assigned !== null && typeof assigned !== "number") return { refused: assigned };
  if (topic.replicationFactor !== -1 && topic.replicationFactor !== 1) {
    return {
      refused: {
        errorCode: ErrorCode.INVALID_REPLICATION_FACTOR,
        errorMessage: `${REPLICATION_FACTOR_REFUSAL}, got ${topic.replicationFactor}.`,
      },
    };
  }
  const configs: Record<string, string> = {};
  for (const { name, value } of topic.configs) {
    if (value === null) {
      return {
        refused: { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Config "${name}" has no value.` },
      };
    }
    if (name in configs) {
      return {
        refused: { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Config "${name}" is given twice.` },
      };
    }
    configs[name] = value;
  }
  // -1 partitions is Kafka's "the broker's default": the REST input's own default.
  const partitions = assigned ?? (topic.numPartitions === -1 ? undefined : topic.numPartitions);
  return { input: { name: topic.name, partitions, configs, validateOnly } };
}

/**
 * CreateTopics v2–v7 through the REST API's createTopic (its validation, quota, audit and
 * messages). Replication is not a topic setting here; v5+ answers each topic's configs as
 * DescribeConfigs would, v7 its topic id. As Kafka, the answer waits (within the request's
 * timeoutMs; none when it is 0 or less) until the new partitions have leaders, so the client's
 * next Metadata names them; a topic whose leaders did not come in time is REQUEST_TIMED_OUT
 * (it exists all the same, and gets its leaders within a claim interval or two).
 */
export const handleCreateTopics: KafkaHandler<19> = async (ctx, session, request) => {
  const deadlineMs = Date.now() + request.timeoutMs;
  const identity = apiKeyIdentity(session.principal);
  const twice = duplicates(request.topics.map((t) => t.name));
  const topics: CreatedTopic[] = [];
  const created: { at: number; topicId: string; partitions: number }[] = [];
  const brokerIds = new Set(withSelf(await ctx.catalog.brokers(), ctx.self()).map((b) => b.nodeId));
  // One at a time: each creation counts against the tenant's partition quota the next one checks.
  for (const wanted of request.topics) {
    const refused = (outcome: AdminOutcome): CreatedTopic => ({
      name: wanted.name,
      topicId: NULL_TOPIC_ID,
      ...outcome,
      numPartitions: -1,
      replicationFactor: -1,
      configs: null,
    });
    const refusal = twice.has(wanted.name)
      ? {
          errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: `Topic "${wanted.name}" appears more than once in this request.`,
        }
      : actRefused(session, "CreateTopics", wanted.name);
    if (refusal) {
      topics.push(refused(refusal));
      continue;
    }
    const converted = restInput(wanted, request.validateOnly, brokerIds);
    if ("refused" in converted) {
      topics.push(refused(converted.refused));
      continue;
    }
    try {
      const made = await createTopic(
        { prisma: ctx.prisma, clock: ctx.clock },
        identity,
        parseAdminInput(createTopicInput, converted.input),
      );
      const row = made.validateOnly
        ? null
        : await ctx.prisma.topic.findUnique({
            where: { id: made.topic.id },
            select: { kafkaTopicId: true },
          });
      if (row) created.push({ at: topics.length, topicId: made.topic.id, partitions: made.topic.partitions });
      topics.push({
        name: made.topic.name,
        topicId: row?.kafkaTopicId ?? NULL_TOPIC_ID,
        ...OK,
        numPartitions: made.topic.partitions,
        replicationFactor: 1,
        configs: describeConfigs(storedConfigs(made.topic.configs)).map((entry) => ({
          name: entry.name,
          value: entry.value,
          readOnly: false,
          configSource: CONFIG_SOURCE[entry.source],
          isSensitive: false,
        })),
      });
    } catch (error) {
      topics.push(refused(adminErrorOf(error, createInputCode)));
    }
  }
  if (request.timeoutMs > 0) {
    for (const { at, topicId, partitions } of created) {
      if (await leadersReady(ctx.prisma, topicId, partitions, deadlineMs)) continue;
      topics[at] = {
        ...(topics[at] as CreatedTopic),
        errorCode: ErrorCode.REQUEST_TIMED_OUT,
        errorMessage: `The topic was created, but its partitions had no leader within the request's ${request.timeoutMs} ms; they get one shortly.`,
      };
    }
  }
  if (!request.validateOnly) ctx.catalog.invalidate();
  return { throttleTimeMs: 0, topics };
};

/**
 * DeleteTopics v1–v6 through the REST API's deleteTopic: by name, or (v6) by topic id among the
 * tenant's own topics, so another tenant's id is exactly an unknown one.
 */
export async function handleDeleteTopics(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: DeleteTopicsRequest,
): Promise<DeleteTopicsResponse> {
  const { tenantId } = session.principal;
  const identity = apiKeyIdentity(session.principal);
  const wanted =
    version >= 6 ? request.topics : request.topicNames.map((name) => ({ name, topicId: NULL_TOPIC_ID }));
  const responses: DeletedTopic[] = [];
  for (const { name, topicId } of wanted) {
    // Read past the catalog's cache: a topic created a moment ago elsewhere is deletable at once.
    const topic = await ctx.prisma.topic.findFirst({
      where: name ? { organizationId: tenantId, name } : { organizationId: tenantId, kafkaTopicId: topicId },
      select: { name: true, kafkaTopicId: true },
    });
    const answer = (outcome: AdminOutcome): DeletedTopic => ({
      name: topic?.name ?? name,
      topicId: topic?.kafkaTopicId ?? topicId,
      ...outcome,
    });
    const view = topic || !name ? null : await viewWriteRefusal(ctx.catalog, tenantId, name);
    const refused =
      actRefused(session, "DeleteTopics", topic?.name ?? name ?? undefined) ??
      // The view goes with its topic; deleting it alone would delete the topic.
      view ??
      (!topic && !name
        ? { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, errorMessage: `No topic has id ${topicId}.` }
        : null);
    const deleted = () =>
      deleteTopic({ prisma: ctx.prisma, clock: ctx.clock }, identity, topic?.name ?? (name as string));
    responses.push(answer(refused ?? (await outcomeOf(deleted, () => ErrorCode.INVALID_REQUEST))));
  }
  ctx.catalog.invalidate();
  return { throttleTimeMs: 0, responses };
}
