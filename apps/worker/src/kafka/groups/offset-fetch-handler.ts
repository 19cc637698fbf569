import { latestViewBase } from "@lastword/api/topic-admin";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { allowed, refusedCode, visible } from "../kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";

interface TopicAnswer {
  name: string;
  partitions: {
    partitionIndex: number;
    committedOffset: bigint;
    metadata: string | null;
    errorCode: number;
  }[];
}

/**
 * One group's committed offsets from the shared rows: the partitions asked for (-1 and no error
 * for one never committed, as Kafka answers), or with `topics` null every committed partition.
 */
async function fetchGroup(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  groupId: string,
  wanted: readonly { name: string; partitionIndexes: readonly number[] }[] | null,
): Promise<{ errorCode: number; topics: TopicAnswer[] }> {
  const { tenantId } = session.principal;
  const fail = (errorCode: number) => ({
    errorCode,
    topics: (wanted ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({
        partitionIndex,
        committedOffset: -1n,
        metadata: "",
        errorCode,
      })),
    })),
  });
  if (!allowed(session, "OffsetFetch", { name: groupId })) return fail(refusedCode("OffsetFetch"));
  if (!ctx.groups.coordinates(tenantId, groupId)) return fail(ErrorCode.NOT_COORDINATOR);
  const stored = await ctx.groupOffsets.fetch(tenantId, groupId);
  if (wanted === null) {
    const byTopic = new Map<string, TopicAnswer>();
    // Every committed topic the key may see (Kafka leaves out the topics a principal may not describe).
    for (const o of stored.filter((s) => visible(session, "topic", s.topic))) {
      const t = byTopic.get(o.topic) ?? { name: o.topic, partitions: [] };
      byTopic.set(o.topic, t);
      t.partitions.push({
        partitionIndex: o.partitionIndex,
        committedOffset: o.offset,
        metadata: o.metadata ?? "",
        errorCode: 0,
      });
    }
    return { errorCode: 0, topics: [...byTopic.values()] };
  }
  const find = new Map(stored.map((o) => [`${o.topic}\0${o.partitionIndex}`, o]));
  return {
    errorCode: 0,
    topics: wanted.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => {
        if (!visible(session, "topic", t.name)) {
          return {
            partitionIndex,
            committedOffset: -1n,
            metadata: "",
            errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          };
        }
        // A view's offsets are its topic's (OffsetCommit stores them so).
        const base = latestViewBase(t.name);
        const o =
          find.get(`${t.name}\0${partitionIndex}`) ??
          (base === null ? undefined : find.get(`${base}\0${partitionIndex}`));
        return {
          partitionIndex,
          committedOffset: o?.offset ?? -1n,
          metadata: o?.metadata ?? "",
          errorCode: 0,
        };
      }),
    })),
  };
}

/** OffsetFetch v1–v8 (v8 asks for several groups at once). */
export async function handleOffsetFetch(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: RequestBody<9>,
): Promise<ResponseInput<9>> {
  if (version >= 8) {
    const groups = await Promise.all(
      request.groups.map(async (g) => ({
        groupId: g.groupId,
        ...(await fetchGroup(ctx, session, g.groupId, g.topics)),
      })),
    );
    return { throttleTimeMs: 0, groups };
  }
  const answer = await fetchGroup(ctx, session, request.groupId, request.topics);
  // v1 has no top-level error code: the per-partition codes carry it.
  return { throttleTimeMs: 0, topics: answer.topics, errorCode: answer.errorCode };
}
