import { ErrorCode } from "@lastword/kafka-protocol";
import type { KafkaBrokerContext } from "../kafka-context";
import { readableTopic } from "../latest-view";
import { GroupLeaseMovedError } from "./group-offsets.repository";

// What OffsetCommit and OffsetDelete share: resolving the requested partitions, and the one write.

/** A partition of a request (OffsetCommit, OffsetDelete) by its index, with whatever else it carries. */
interface RequestedPartition {
  partitionIndex: number;
}

/**
 * Each requested partition's error code: UNKNOWN_TOPIC_OR_PARTITION where the tenant's topic lacks
 * it (or the tenant has no such topic), else what `each` makes of it, given the topic's id and name.
 * A compacted view's name resolves to its topic: the view's offsets are the topic's.
 */
export async function perRequestedPartition<P extends RequestedPartition>(
  ctx: KafkaBrokerContext,
  tenantId: string,
  topics: readonly { name: string; partitions: readonly P[] }[],
  each: (topicId: string, topicName: string, partition: P) => number,
): Promise<{ name: string; partitions: { partitionIndex: number; errorCode: number }[] }[]> {
  return Promise.all(
    topics.map(async (t) => {
      const topic = (await readableTopic(ctx.catalog, tenantId, t.name))?.topic;
      return {
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: topic?.partitions.some((x) => x.index === p.partitionIndex)
            ? each(topic.id, topic.name, p)
            : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        })),
      };
    }),
  );
}

/**
 * Runs a request's one write to the group's offset rows and answers the error code for it: 0;
 * NOT_COORDINATOR when the lease moved before the write (the client looks the coordinator up
 * again); COORDINATOR_NOT_AVAILABLE when it threw otherwise (logged as `what` failed; the client
 * retries).
 */
export async function writeOffsets(
  ctx: KafkaBrokerContext,
  groupId: string,
  what: string,
  write: () => Promise<unknown>,
): Promise<number> {
  try {
    await write();
    return 0;
  } catch (error) {
    if (error instanceof GroupLeaseMovedError) {
      ctx.logger.info({ groupId }, `${what} refused: the group's coordinator lease moved`);
      return ErrorCode.NOT_COORDINATOR;
    }
    ctx.logger.warn({ err: error, groupId }, `${what} failed`);
    return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  }
}
