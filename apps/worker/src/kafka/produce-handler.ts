import { hasScope } from "@lastword/api/key-auth";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { produce } from "../dataplane/dataplane-handlers";
import type { KafkaBrokerContext, KafkaSession } from "./kafka-context";
import { kafkaErrorOf } from "./kafka-errors";
import { produceRecords } from "./produce-batches";

type ProduceRequest = RequestBody<0>;
type ProduceResponse = ResponseInput<0>;
type TopicData = ProduceRequest["topicData"][number];
type PartitionData = TopicData["partitionData"][number];
type PartitionResponse = NonNullable<
  NonNullable<ProduceResponse["responses"]>[number]["partitionResponses"]
>[number];

function failed(index: number, errorCode: number, errorMessage: string | null): PartitionResponse {
  return {
    index,
    errorCode,
    baseOffset: -1n,
    logAppendTimeMs: -1n,
    logStartOffset: -1n,
    recordErrors: [],
    errorMessage,
  };
}

async function producePartition(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  topicName: string,
  data: PartitionData,
): Promise<PartitionResponse> {
  const topic = await ctx.catalog.topic(session.principal.tenantId, topicName);
  const partition = topic?.partitions.find((p) => p.index === data.index);
  if (!topic || !partition) return failed(data.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
  if (!hasScope(session.principal.scopes, "records:write")) {
    return failed(
      data.index,
      ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      "this API key lacks the records:write scope",
    );
  }
  if (!ctx.host.slot(partition.id)) {
    return failed(data.index, ErrorCode.NOT_LEADER_OR_FOLLOWER, "this broker does not lead the partition");
  }
  const records = produceRecords(data.records, topic.config, `${topicName}-${data.index}`);
  if (!Array.isArray(records)) {
    return {
      ...failed(data.index, records.errorCode, records.message),
      recordErrors: records.recordErrors ?? [],
    };
  }
  try {
    // The data plane's own append: the same fencing, validation, tombstone audit and wake-ups.
    const { baseOffset } = await produce(ctx.host, ctx.audit, partition.id, Promise.resolve(records));
    const logStartOffset = await ctx.host.read(partition.id, async (log) => log.logStartOffset);
    return {
      index: data.index,
      errorCode: 0,
      baseOffset: BigInt(baseOffset),
      logAppendTimeMs: -1n,
      logStartOffset: BigInt(logStartOffset),
      recordErrors: [],
      errorMessage: null,
    };
  } catch (error) {
    const { errorCode, message } = kafkaErrorOf(error);
    if (errorCode === ErrorCode.UNKNOWN_SERVER_ERROR)
      ctx.logger.error({ err: error, topic: topicName }, "kafka produce failed");
    return failed(data.index, errorCode, message);
  }
}

/**
 * Produce v3+: each partition's batches validated, then appended as one append (consecutive
 * offsets, durable when answered: acks 1 and -1 mean the same on a log that fsyncs per append).
 * `null` means no answer at all (acks=0).
 */
export async function handleProduce(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: ProduceRequest,
): Promise<ProduceResponse | null> {
  if (request.transactionalId !== null) {
    const responses = request.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) =>
        failed(p.index, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, "transactions are not supported"),
      ),
    }));
    return request.acks === 0 ? null : { responses, throttleTimeMs: 0 };
  }
  const validAcks = request.acks === 0 || request.acks === 1 || request.acks === -1;
  // Counted alongside the append, never instead of it: over the quota the records still land.
  const throttle = validAcks ? produceThrottle(ctx, session, request) : Promise.resolve(0);
  const responses = await Promise.all(
    request.topicData.map(async (t) => ({
      name: t.name,
      partitionResponses: await Promise.all(
        t.partitionData.map((p) =>
          validAcks
            ? producePartition(ctx, session, t.name, p)
            : Promise.resolve(failed(p.index, ErrorCode.INVALID_REQUIRED_ACKS, `acks must be -1, 0 or 1`)),
        ),
      ),
    })),
  );
  const throttleTimeMs = await throttle;
  session.throttle(throttleTimeMs);
  return request.acks === 0 ? null : { responses, throttleTimeMs };
}

/** The tenant's produce quota counts the record batches' bytes, as REST counts its request's. */
function produceThrottle(ctx: KafkaBrokerContext, session: KafkaSession, request: ProduceRequest) {
  if (!ctx.quotas) return Promise.resolve(0);
  let bytes = 0;
  for (const t of request.topicData) for (const p of t.partitionData) bytes += p.records?.length ?? 0;
  return ctx.quotas.produced(session.principal.tenantId, bytes);
}
