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
  await prisma.organization.upsert({
    where: { id: organizationId },
    create: { id: organizationId, name: organizationId, slug: organizationId, createdAt: new Date() },
    update: {},
  });
  const topic = await prisma.topic.create({
    data: {
      organizationId,
      name: `topic-${randomBytes(4).toString("hex")}`,
      partitionCount: options.partitions,
      configs: options.configs ?? {},
      partitions: { create: Array.from({ length: options.partitions }, (_, index) => ({ index })) },
    },
    include: { partitions: { orderBy: { index: "asc" } } },
  });
  return { organizationId, topicId: topic.id, partitionIds: topic.partitions.map((p) => p.id) };
}
