import type { PrismaClient } from "@lastword/db";

/** Inserts `tenants` organizations with one topic of `partitionsPerTenant` partitions each; returns partition ids. */
export async function seedTenants(
  prisma: PrismaClient,
  options: { tenants: number; partitionsPerTenant: number; configs: Record<string, string>; tag: string },
): Promise<string[]> {
  const organizations = Array.from({ length: options.tenants }, (_, i) => {
    const id = `bench_${options.tag}_${i}`;
    return { id, name: id, slug: id, createdAt: new Date() };
  });
  await prisma.organization.createMany({ data: organizations });
  const topics = organizations.map((org) => ({
    id: `t_${org.id}`,
    organizationId: org.id,
    name: "events",
    partitionCount: options.partitionsPerTenant,
    configs: options.configs,
  }));
  await prisma.topic.createMany({ data: topics });
  const partitions = topics.flatMap((topic) =>
    Array.from({ length: options.partitionsPerTenant }, (_, index) => ({
      id: `${topic.id}_p${index}`,
      topicId: topic.id,
      index,
    })),
  );
  await prisma.partition.createMany({ data: partitions });
  return partitions.map((p) => p.id);
}

/**
 * One tenant's compacted partition of `segmentBytes` segments, its closed segments in the bucket only
 * and no pass unless asked for (dirty ratio 1): the bucket keeps the whole history a new owner or a
 * requested pass reads. Its id.
 */
export async function seedTieredPartition(
  prisma: PrismaClient,
  segmentBytes: number,
  tag: string,
): Promise<string> {
  const [partitionId] = await seedTenants(prisma, {
    tenants: 1,
    partitionsPerTenant: 1,
    configs: {
      "cleanup.policy": "compact",
      "segment.bytes": String(segmentBytes),
      "local.retention.bytes": "0",
      "lastword.durability": "local",
      "min.cleanable.dirty.ratio": "1",
    },
    tag,
  });
  return partitionId!;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
