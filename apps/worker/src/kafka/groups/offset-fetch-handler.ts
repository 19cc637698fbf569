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
  requireStable: boolean,
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
  const unstable = requireStable
    ? await pendingPartitions(ctx, tenantId, groupId, wanted)
    : new Set<string>();
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
        if (unstable.has(`${t.name}\0${partitionIndex}`)) {
          return {
            partitionIndex,
            committedOffset: -1n,
            metadata: "",
            errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT,
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

/**
 * KIP-447's require_stable (OffsetFetch v7+, what a read_committed consumer sends): the requested
 * partitions an open transaction holds offsets for, by `topic\0partition`. Their answer is
 * UNSTABLE_OFFSET_COMMIT (retriable) until the transaction ends, so a consumer taking over a
 * partition never starts from the offset before a commit that is about to land.
 */
async function pendingPartitions(
  ctx: KafkaBrokerContext,
  tenantId: string,
  groupId: string,
  wanted: readonly { name: string; partitionIndexes: readonly number[] }[],
): Promise<Set<string>> {
  const pending = await ctx.txnStates.pendingFor(tenantId, groupId);
  const held = new Set(pending.map((o) => `${o.topicId}\0${o.partitionIndex}`));
  const unstable = new Set<string>();
  if (held.size === 0) return unstable;
  for (const t of wanted) {
    const topic = await ctx.catalog.topic(tenantId, latestViewBase(t.name) ?? t.name);
    if (!topic) continue;
    for (const p of t.partitionIndexes) if (held.has(`${topic.id}\0${p}`)) unstable.add(`${t.name}\0${p}`);
  }
  return unstable;
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
        ...(await fetchGroup(ctx, session, g.groupId, g.topics, request.requireStable)),
      })),
    );
    return { throttleTimeMs: 0, groups };
  }
  const answer = await fetchGroup(ctx, session, request.groupId, request.topics, request.requireStable);
  // v1 has no top-level error code: the per-partition codes carry it.
  return { throttleTimeMs: 0, topics: answer.topics, errorCode: answer.errorCode };
}
