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

/** Polls `check` every 50 ms until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
