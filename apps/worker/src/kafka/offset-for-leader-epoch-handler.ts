import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { allowed } from "./kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "./kafka-context";
import { kafkaErrorOf, notHostedError } from "./kafka-errors";
import { readableTopic } from "./latest-view";
import { leaderEpochError } from "./leader-epoch-check";

type OffsetForLeaderEpochRequest = RequestBody<23>;
type OffsetForLeaderEpochResponse = ResponseInput<23>;
type PartitionRequest = OffsetForLeaderEpochRequest["topics"][number]["partitions"][number];

const failed = (partition: number, errorCode: number) => ({
  errorCode,
  partition,
  leaderEpoch: -1,
  endOffset: -1n,
});

async function endOffset(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  topicName: string,
  p: PartitionRequest,
) {
  if (!allowed(session, "OffsetForLeaderEpoch", { name: topicName }))
    return failed(p.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const topic = (await readableTopic(ctx.catalog, session.principal.tenantId, topicName))?.topic;
  const partition = topic?.partitions.find((x) => x.index === p.partition);
  if (!partition) return failed(p.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const slot = ctx.host.slot(partition.id);
  if (!slot) return failed(p.partition, notHostedError(ctx.host, partition.id));
  const fenced = leaderEpochError(slot.epoch, p.currentLeaderEpoch ?? -1);
  if (fenced !== null) return failed(p.partition, fenced);
  try {
    const logEnd = await ctx.host.read(partition.id, async (log) => log.logEndOffset);
    const history = slot.leaderEpochs;
    if (!history) return failed(p.partition, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const found = history.endOffsetFor(p.leaderEpoch, logEnd);
    return {
      errorCode: 0,
      partition: p.partition,
      leaderEpoch: found.leaderEpoch,
      endOffset: BigInt(found.endOffset),
    };
  } catch (error) {
    return failed(p.partition, kafkaErrorOf(error).errorCode);
  }
}

/**
 * OffsetForLeaderEpoch v0–v4 as a consumer sends it (replica id −1 / −2): for each partition, where
 * the requested leader epoch ended, from the partition's epoch history (the current epoch ends at
 * the log end). A consumer compares it with its position to detect a truncated log after a move.
 */
export async function handleOffsetForLeaderEpoch(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: OffsetForLeaderEpochRequest,
): Promise<OffsetForLeaderEpochResponse> {
  const topics = await Promise.all(
    request.topics.map(async (t) => ({
      topic: t.topic,
      partitions: await Promise.all(t.partitions.map((p) => endOffset(ctx, session, t.topic, p))),
    })),
  );
  return { throttleTimeMs: 0, topics };
}
