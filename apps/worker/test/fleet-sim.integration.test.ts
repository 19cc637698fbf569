import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureStatementFloor, simulateFleet } from "../bench/fleet-sim";

// The fleet simulation's harness at a tiny size (the bench runs it at 10,000–100,000 partitions):
// what its simulated workers believe committed is exactly what Postgres holds.
describe("fleet simulation harness", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("lastword_fleet_sim");
  });
  afterAll(async () => {
    await db?.drop();
  });

  const tiny = {
    partitions: 40,
    workers: 4,
    producesPerPartitionPerSecond: 20,
    warmupMs: 0,
    leaseTtlMs: 1_500,
    claimIntervalMs: 100,
  };

  it("spreads the partitions over its workers and commits their manifests under the claimed epochs", async () => {
    const result = await simulateFleet({ ...tiny, databaseUrl: db.url, prisma: db.prisma, measureMs: 1_500 });
    const partitions = await db.prisma.partition.findMany({
      include: { _count: { select: { objects: true } } },
    });
    expect(partitions).toHaveLength(40);
    const owners = new Set(partitions.map((p) => p.ownerWorkerId));
    expect([...owners].sort()).toEqual(["sim-fleet-0", "sim-fleet-1", "sim-fleet-2", "sim-fleet-3"]);
    for (const partition of partitions) {
      expect(partition.leaseEpoch).toBe(1);
      expect(Number(partition.durableEndOffset)).toBe(result.durableEnds.get(partition.id));
    }
    const rows = partitions.reduce((sum, p) => sum + p._count.objects, 0);
    expect(rows).toBe(result.committedEntries);
    expect(rows).toBeGreaterThan(0);
    expect(result.fenced).toBe(0);
    expect(result.statements.commit.count).toBeGreaterThan(0);
    expect(result.statements.renew.count).toBeGreaterThan(0);
    expect(result.statements.heartbeat.count).toBeGreaterThan(0);
    expect(result.statements.snapshot.count).toBeGreaterThan(0);
  });

  it("picks up where a run on the same database left off: same workers, next epoch, manifests extended", async () => {
    const before = await db.prisma.partitionObject.count();
    const result = await simulateFleet({
      ...tiny,
      databaseUrl: db.url,
      prisma: db.prisma,
      measureMs: 1_000,
      seed: false,
    });
    const partitions = await db.prisma.partition.findMany();
    for (const partition of partitions) {
      expect(partition.leaseEpoch).toBe(2);
      expect(Number(partition.durableEndOffset)).toBe(result.durableEnds.get(partition.id));
    }
    expect(await db.prisma.partitionObject.count()).toBe(result.committedEntries);
    expect(result.committedEntries).toBeGreaterThan(before);
    expect(result.fenced).toBe(0);
  });

  it("measures the statement floor on the fleet it left: each statement commits and renews every partition of its worker", async () => {
    const ends = async () =>
      new Map(
        (await db.prisma.partition.findMany()).map((p) => [
          p.id,
          { owner: p.ownerWorkerId, end: Number(p.durableEndOffset) },
        ]),
      );
    const before = await ends();
    const rowsBefore = await db.prisma.partitionObject.count();
    const floor = await measureStatementFloor({
      databaseUrl: db.url,
      prisma: db.prisma,
      connections: 2,
      durationMs: 300,
    });
    expect(floor.commitRowsPerSecond).toBeGreaterThan(0);
    expect(floor.renewRowsPerSecond).toBeGreaterThan(0);
    expect(floor.snapshotMs).toBeGreaterThan(0);
    const after = await ends();
    // The two measuring workers' partitions moved together (whole shares per statement), by
    // whole produces; the other workers' stayed where they were.
    const moved = new Map<string, Set<number>>();
    for (const [id, { owner, end }] of after) {
      const step = end - before.get(id)!.end;
      if (owner === "sim-fleet-0" || owner === "sim-fleet-1") {
        expect(step).toBeGreaterThan(0);
        expect(step % 10).toBe(0);
        moved.set(owner, (moved.get(owner) ?? new Set()).add(step));
      } else {
        expect(step).toBe(0);
      }
    }
    expect([...moved.values()].map((steps) => steps.size)).toEqual([1, 1]);
    const committed = [...after].reduce((sum, [id, { end }]) => sum + (end - before.get(id)!.end) / 10, 0);
    expect(await db.prisma.partitionObject.count()).toBe(rowsBefore + committed);
  });
});
