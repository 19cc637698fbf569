// `eventually` lives with the other test helpers in @lastword/db/testing; re-exported for the worker tests.
export { eventually } from "@lastword/db/testing";

import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@lastword/db";

export interface TestTopic {
  organizationId: string;
  topicId: string;
  partitionIds: string[];
}

/** An organization with one topic of `partitions` partitions, inserted as the control plane would. */
export async function createTestTopic(
  prisma: PrismaClient,
  options: { partitions: number; configs?: Record<string, string>; organizationId?: string },
): Promise<TestTopic> {
  const organizationId = options.organizationId ?? `org_${randomBytes(4).toString("hex")}`;
  const name = `topic-${randomBytes(4).toString("hex")}`;
  const { topicId, partitionIds } = await insertTopic(prisma, organizationId, name, options);
  return { organizationId, topicId, partitionIds };
}

/** A topic of one partition with `configs`, and that partition's id. */
export async function createTestPartition(
  prisma: PrismaClient,
  configs: Record<string, string>,
): Promise<TestTopic & { partitionId: string }> {
  const topic = await createTestTopic(prisma, { partitions: 1, configs });
  return { ...topic, partitionId: topic.partitionIds[0]! };
}

/** A topic with a chosen name (the same name in two tenants is the isolation test's point). */
export async function createNamedTopic(
  prisma: PrismaClient,
  organizationId: string,
  name: string,
  partitions: number,
  configs: Record<string, string> = {},
): Promise<string[]> {
  return (await insertTopic(prisma, organizationId, name, { partitions, configs })).partitionIds;
}

/** Several topics of one organization with default configs, by name → partition count, one after another. */
export async function createNamedTopics(
  prisma: PrismaClient,
  organizationId: string,
  partitionsByName: Record<string, number>,
): Promise<void> {
  for (const [name, partitions] of Object.entries(partitionsByName)) {
    await createNamedTopic(prisma, organizationId, name, partitions);
  }
}

/** The organization (created when missing), the topic and its partitions, as the control plane writes them. */
async function insertTopic(
  prisma: PrismaClient,
  organizationId: string,
  name: string,
  options: { partitions: number; configs?: Record<string, string> },
): Promise<{ topicId: string; partitionIds: string[] }> {
  await prisma.organization.upsert({
    where: { id: organizationId },
    create: { id: organizationId, name: organizationId, slug: organizationId, createdAt: new Date() },
    update: {},
  });
  const topic = await prisma.topic.create({
    data: {
      organizationId,
      name,
      partitionCount: options.partitions,
      configs: options.configs ?? {},
      partitions: { create: Array.from({ length: options.partitions }, (_, index) => ({ index })) },
    },
    include: { partitions: { orderBy: { index: "asc" } } },
  });
  return { topicId: topic.id, partitionIds: topic.partitions.map((p) => p.id) };
}

/** The worker leading each of `partitionIds` (null: none), in their order. */
export async function partitionOwners(
  prisma: PrismaClient,
  partitionIds: string[],
): Promise<(string | null)[]> {
  const rows = await prisma.partition.findMany({ where: { id: { in: partitionIds } } });
  return partitionIds.map((id) => rows.find((r) => r.id === id)?.ownerWorkerId ?? null);
}

/** Of the workers `live`, the one leading the most of the partitions `owners` names. */
export function busiestWorker(owners: readonly (string | null)[], live: Iterable<string>): string {
  const led = (id: string) => owners.filter((o) => o === id).length;
  const [busiest] = [...live].sort((a, b) => led(b) - led(a));
  if (busiest === undefined) throw new Error("no live worker");
  return busiest;
}
