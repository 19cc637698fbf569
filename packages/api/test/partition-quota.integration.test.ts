import { describe, expect, it } from "vitest";
import { forgetTenantQuota } from "../src/services/rate-limit.service";
import { anotherWebProcess, createQuota, provisionTenantKey, rest, trpc, useHarness } from "./api-harness";

// Issue 28.6: 30 parallel topic creates took a 10-partition tenant to 40 partitions. The quota is
// checked in the transaction that adds the partitions, under a per-tenant lock
// (services/partition-quota.ts), so no interleaving of creates and growths, across web
// processes too, passes it.
const h = useHarness("partition_quota");

async function partitionsOf(organizationId: string): Promise<{ declared: number; rows: number }> {
  const [declared, rows] = await Promise.all([
    h.db.prisma.topic.aggregate({ where: { organizationId }, _sum: { partitionCount: true } }),
    h.db.prisma.partition.count({ where: { topic: { organizationId } } }),
  ]);
  return { declared: declared._sum.partitionCount ?? 0, rows };
}

describe("the partition quota under concurrency", () => {
  it("30 parallel creates over two web processes and both faces fill a 10-partition quota exactly", async () => {
    const tenant = await provisionTenantKey(h.server, "Quota Race", ["topics:read", "topics:write"]);
    await createQuota(h.db.prisma, tenant.organizationId, { maxPartitions: 10 });
    forgetTenantQuota(h.db.prisma, tenant.organizationId);
    const other = anotherWebProcess(h);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 3 === 2
          ? trpc(h.server, { apiKey: tenant.key }, "mutation", "topics.create", {
              name: `race-${i}`,
              partitions: 1,
            }).then((r) => r.status)
          : rest(i % 2 === 0 ? h.server : other, { apiKey: tenant.key }, "POST", "/topics", {
              name: `race-${i}`,
              partitions: 1,
            }).then((r) => {
              if (r.status !== 201)
                expect(r.body).toMatchObject({ code: "QUOTA_EXCEEDED", quota: "partitions" });
              return r.status;
            }),
      ),
    );
    const created = answers.filter((s) => s === 200 || s === 201).length;
    expect(
      answers.every((s) => s === 200 || s === 201 || s === 429),
      String(answers),
    ).toBe(true);
    expect(created).toBe(10);
    expect(await partitionsOf(tenant.organizationId)).toEqual({ declared: 10, rows: 10 });
    await other.close(5_000);
  });

  it("parallel partition growth and creates never pass the quota, and each growth counts from the committed count", async () => {
    const tenant = await provisionTenantKey(h.server, "Growth Race", ["topics:read", "topics:write"]);
    await createQuota(h.db.prisma, tenant.organizationId, { maxPartitions: 12 });
    forgetTenantQuota(h.db.prisma, tenant.organizationId);
    for (const name of ["grow-a", "grow-b"]) {
      const made = await rest(h.server, { apiKey: tenant.key }, "POST", "/topics", { name, partitions: 2 });
      expect(made.status).toBe(201);
    }
    // 8 partitions are left; every request below alone would fit, together they are 3 × 4 + 3 × 3 = 21.
    const answers = await Promise.all([
      ...["grow-a", "grow-b", "grow-a"].map((topic) =>
        rest(h.server, { apiKey: tenant.key }, "POST", `/topics/${topic}/partitions`, { count: 6 }),
      ),
      ...[0, 1, 2].map((i) =>
        rest(h.server, { apiKey: tenant.key }, "POST", "/topics", { name: `extra-${i}`, partitions: 3 }),
      ),
    ]);
    for (const answer of answers) {
      // A growth that lost the race to its own topic's first growth is "already has 6", not a 500.
      if (answer.status >= 400) expect(["QUOTA_EXCEEDED", "INVALID_INPUT"]).toContain(answer.body.code);
      expect([200, 201, 400, 429]).toContain(answer.status);
    }
    const usage = await partitionsOf(tenant.organizationId);
    expect(usage.declared).toBeLessThanOrEqual(12);
    expect(usage.rows, "every declared partition has its row, no more").toBe(usage.declared);
    expect(answers.some((a) => a.status === 200 || a.status === 201)).toBe(true);
  });
});
