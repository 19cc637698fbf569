import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import type { HostedLog } from "../hosting/hosted-log";
import { offsetForTimestamp } from "../hosting/timestamp-lookup";
import { allowed } from "./kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "./kafka-context";
import { kafkaErrorOf, notHostedError } from "./kafka-errors";
import { readableTopic } from "./latest-view";
import { leaderEpochError } from "./leader-epoch-check";

type ListOffsetsRequest = RequestBody<2>;
type ListOffsetsResponse = ResponseInput<2>;

const LATEST = -1;
const EARLIEST = -2;
const MAX_TIMESTAMP = -3;

/** Kafka's isolation_level (ListOffsets v2+): 1 is READ_COMMITTED. */
const READ_COMMITTED = 1;

async function lookup(
  log: HostedLog,
  timestamp: number,
  committed: boolean,
): Promise<{ offset: number; timestamp: number }> {
  // Kafka's latest: the high watermark for a read-uncommitted consumer, the last stable offset for
  // a read-committed one (where each one's fetches can start).
  if (timestamp === LATEST)
    return { offset: committed ? log.lastStableOffset : log.highWatermark, timestamp: -1 };
  if (timestamp === EARLIEST) return { offset: log.logStartOffset, timestamp: -1 };
  if (timestamp === MAX_TIMESTAMP) {
    const segments = await log.segments();
    const max = Math.max(-1, ...segments.filter((s) => s.records > 0).map((s) => s.maxTimestamp ?? -1));
    const found = max < 0 ? null : await offsetForTimestamp(log, max);
    return found ?? { offset: -1, timestamp: -1 };
  }
  // -1 when no record is that recent; clients then use the high watermark (kafkajs does). Kafka
  // answers the record's own timestamp, which may be later than the one asked for.
  return (await offsetForTimestamp(log, timestamp)) ?? { offset: -1, timestamp: -1 };
}

/**
 * ListOffsets v0's answer (Kafka's legacy fetchOffsetsBefore): up to `maxNumOffsets` offsets, newest
 * first, from the segment base offsets (and the log end) at or before the time asked for. Latest:
 * the log end, then every segment's base; earliest: the log start; a time: the bases of the
 * segments whose records are all at or before it. A segment's largest record timestamp stands in
 * for Kafka's segment file time.
 */
async function oldStyleOffsets(log: HostedLog, timestamp: number, maxNumOffsets: number): Promise<bigint[]> {
  if (timestamp === EARLIEST) return maxNumOffsets > 0 ? [BigInt(log.logStartOffset)] : [];
  const points = (await log.segments()).map((s) => ({ offset: s.baseOffset, time: s.maxTimestamp ?? -1 }));
  if (log.highWatermark > (points.at(-1)?.offset ?? -1))
    points.push({ offset: log.highWatermark, time: Infinity });
  const eligible = timestamp === LATEST ? points : points.filter((p) => p.time <= timestamp);
  return eligible
    .map((p) => BigInt(Math.max(p.offset, log.logStartOffset)))
    .reverse()
    .filter((offset, i, all) => i === 0 || offset !== all[i - 1])
    .slice(0, Math.max(0, maxNumOffsets));
}

/**
 * ListOffsets: earliest, latest, max timestamp (v7) and the first offset at or after a time (v1+);
 * v0 answers its list of offsets instead (`oldStyleOffsets`).
 */
export async function handleListOffsets(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: ListOffsetsRequest,
  version: number,
): Promise<ListOffsetsResponse> {
  const topics = await Promise.all(
    request.topics.map(async (t) => {
      const mayDescribe = allowed(session, "ListOffsets", { name: t.name });
      // A view answers its topic's offsets: the offsets it serves are the topic's.
      const topic = (await readableTopic(ctx.catalog, session.principal.tenantId, t.name))?.topic;
      const partitions = await Promise.all(
        t.partitions.map(async (p) => {
          const base = {
            partitionIndex: p.partitionIndex,
            timestamp: -1n,
            offset: -1n,
            leaderEpoch: -1,
            oldStyleOffsets: [] as bigint[],
          };
          if (!mayDescribe) return { ...base, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
          const partition = topic?.partitions.find((x) => x.index === p.partitionIndex);
          if (!partition) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
          const slot = ctx.host.slot(partition.id);
          if (!slot) return { ...base, errorCode: notHostedError(ctx.host, partition.id) };
          const fenced = leaderEpochError(slot.epoch, p.currentLeaderEpoch ?? -1);
          if (fenced !== null) return { ...base, errorCode: fenced };
          try {
            if (version === 0) {
              const offsets = await ctx.host.read(partition.id, (log) =>
                oldStyleOffsets(log, Number(p.timestamp), p.maxNumOffsets ?? 1),
              );
              return { ...base, errorCode: 0, oldStyleOffsets: offsets };
            }
            const committed = request.isolationLevel === READ_COMMITTED;
            const found = await ctx.host.read(partition.id, (log) =>
              lookup(log, Number(p.timestamp), committed),
            );
            return {
              ...base,
              errorCode: 0,
              offset: BigInt(found.offset),
              timestamp: BigInt(found.timestamp),
              // The epoch that wrote the offset found (the latest one for the log end), as Kafka answers.
              leaderEpoch: found.offset < 0 ? -1 : (slot.leaderEpochs?.epochAt(found.offset) ?? -1),
            };
          } catch (error) {
            return { ...base, errorCode: kafkaErrorOf(error).errorCode };
          }
        }),
      );
      return { name: t.name, partitions };
    }),
  );
  return { throttleTimeMs: 0, topics };
}
