import type { PrismaClient, Topic } from "@lastword/db";
import { AppError } from "../errors/app-error";
import { partitionForKey } from "../records/partitioner";
import { assertNotProtected, isProtectedTopic } from "./protected-topics";
import { findTopic } from "./topic.service";
import { isCompacted, storedConfigs } from "./topic-config";

/** Topics an erasure request covers: the named ones (each must compact), or every compacted topic. */
export async function topicsInScope(
  prisma: PrismaClient,
  tenantId: string,
  scope: { topics?: string[] | undefined; allCompacted?: boolean | undefined },
): Promise<Topic[]> {
  if (scope.allCompacted) {
    const all = await prisma.topic.findMany({
      where: { organizationId: tenantId },
      orderBy: { name: "asc" },
    });
    return all.filter((topic) => isCompacted(storedConfigs(topic.configs)) && !isProtectedTopic(topic.name));
  }
  const names = [...new Set(scope.topics ?? [])];
  if (names.length === 0)
    throw new AppError("INVALID_INPUT", "Name the topics in scope, or set allCompacted: true.");
  const topics: Topic[] = [];
  for (const name of names) {
    assertNotProtected(name, "erased from (schemas are deleted through the registry)");
    const topic = await findTopic(prisma, tenantId, name);
    if (!isCompacted(storedConfigs(topic.configs)))
      throw new AppError(
        "POLICY_VIOLATION",
        `Topic ${name} does not compact (cleanup.policy=delete): a tombstone would not remove earlier values; its retention.ms bounds them instead.`,
      );
    topics.push(topic);
  }
  return topics;
}

/**
 * The partitions that get a tombstone for a key: the one Kafka's default partitioner picks
 * (murmur2, as a Kafka client would) plus every partition whose key index holds a record of it
 * (a live value, or a tombstone that older values may still sit beneath).
 */
export function tombstonePartitions(
  key: Buffer,
  partitionCount: number,
  holders: readonly number[] = [],
): number[] {
  return [...new Set([partitionForKey(key, partitionCount), ...holders])].sort((a, b) => a - b);
}
