import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { ManualClock } from "@lastword/logstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchTally } from "../src/metrics/fetch-tally";
import {
  type PartitionStats,
  PartitionStatsRepository,
  SAMPLE_RETENTION_MS,
} from "../src/metrics/partition-stats.repository";

// The per-minute history behind the console's charts, as the owner writes it on its ticks.
let db: TestDatabase;
const ids: string[] = [];
let topicId: string;
let groupId: string;
const MINUTE = 60_000;
const START = Date.parse("2026-12-01T10:00:05.000Z");

const stats = (sizeBytes: number, dirtyRatio: number, logEndOffset: number): PartitionStats => ({
  sizeBytes,
  segments: 1,
  logStartOffset: 0,
  logEndOffset,
  dirtyRatio,
  cleanable: false,
  maxCompactionDelayMs: 0,
  nextCleanDueAt: null,
  lastCleanAt: null,
  uncleanable: null,
  workerId: "w1",
  updatedAt: new Date(START).toISOString(),
});

beforeAll(async () => {
  db = await createTestDatabase("lastword_test_partition_samples");
  const { prisma } = db;
  await prisma.organization.create({ data: { id: "org-a", name: "A", slug: "a", createdAt: new Date() } });
  await prisma.worker.createMany({
    data: [
      { id: "w1", address: "http://w1" },
      { id: "w2", address: "http://w2" },
    ],
  });
  const topic = await prisma.topic.create({
    data: { organizationId: "org-a", name: "orders", partitionCount: 3 },
  });
  topicId = topic.id;
  for (const [index, owner] of [
    [0, "w1"],
    [1, "w1"],
    [2, "w2"],
  ] as const) {
    const row = await prisma.partition.create({ data: { topicId, index, ownerWorkerId: owner } });
    ids.push(row.id);
  }
  const group = await prisma.consumerGroup.create({ data: { organizationId: "org-a", name: "billing" } });
  groupId = group.id;
  await prisma.consumerGroupOffset.create({ data: { groupId, topicId, partitionIndex: 0, offset: 4n } });
  // A Kafka client's "no position" (-1) on an owned partition: no lag, so no sample.
  const lost = await prisma.consumerGroup.create({ data: { organizationId: "org-a", name: "reset" } });
  await prisma.consumerGroupOffset.create({
    data: { groupId: lost.id, topicId, partitionIndex: 1, offset: -1n },
  });
});

afterAll(async () => {
  await db?.drop();
});

describe("partition samples", () => {
  it("keeps one row per owned partition per minute, its last stats, each group's lag (none without a committed position), and prunes past a day", async () => {
    const { prisma } = db;
    const clock = new ManualClock(START);
    const fetched = new FetchTally();
    const repo = new PartitionStatsRepository(prisma, "w1", clock, fetched);
    const report = (end0: number) =>
      new Map([
        [ids[0]!, stats(1000, 0.25, end0)],
        [ids[1]!, stats(500, 0, 3)],
        // Owned by w2: w1 writes neither its stats nor its samples.
        [ids[2]!, stats(9999, 0.5, 99)],
      ]);

    const firstEndAt = async (at: Date) =>
      (
        await prisma.partitionSample.findUniqueOrThrow({
          where: { partitionId_at: { partitionId: ids[0]!, at } },
        })
      ).logEndOffset;

    fetched.add(ids[0]!, 3);
    await repo.save(report(10));
    const minute0 = new Date(START - 5_000);
    expect(await prisma.partitionSample.findMany({ orderBy: { partitionId: "asc" } })).toEqual(
      [
        {
          partitionId: ids[0],
          at: minute0,
          sizeBytes: 1000n,
          dirtyBytes: 250n,
          logEndOffset: 10n,
          fetchedRecords: 3n,
        },
        {
          partitionId: ids[1],
          at: minute0,
          sizeBytes: 500n,
          dirtyBytes: 0n,
          logEndOffset: 3n,
          fetchedRecords: 0n,
        },
      ].sort((a, b) => a.partitionId!.localeCompare(b.partitionId!)),
    );
    expect(await prisma.groupLagSample.findMany()).toEqual([
      { groupId, topicId, partitionIndex: 0, at: minute0, lag: 6n },
    ]);

    // Within the refresh interval a tick writes no sample; after it, the minute's row is rewritten.
    clock.advance(5_000);
    await repo.save(report(12));
    expect(await firstEndAt(minute0)).toBe(10n);
    // Fetches add up over the minute's writes (the tally is drained into each).
    fetched.add(ids[0]!, 2);
    clock.advance(10_000);
    await repo.save(report(14));
    expect(await firstEndAt(minute0)).toBe(14n);
    expect(
      (
        await prisma.partitionSample.findUniqueOrThrow({
          where: { partitionId_at: { partitionId: ids[0]!, at: minute0 } },
        })
      ).fetchedRecords,
    ).toBe(5n);
    expect((await prisma.groupLagSample.findFirstOrThrow()).lag).toBe(10n);

    // The next minute is a new row at once.
    clock.advance(MINUTE);
    await repo.save(report(20));
    expect(await prisma.partitionSample.count({ where: { partitionId: ids[0]! } })).toBe(2);

    // A day later the old minutes go, this worker's and every other's alike.
    await prisma.partitionSample.create({
      data: { partitionId: ids[2]!, at: minute0, sizeBytes: 1n, dirtyBytes: 0n, logEndOffset: 1n },
    });
    clock.advance(SAMPLE_RETENTION_MS);
    await repo.save(report(30));
    const left = await prisma.partitionSample.findMany({ select: { at: true } });
    expect(new Set(left.map((row) => row.at.getTime()))).toEqual(
      new Set([minute0.getTime() + MINUTE, minute0.getTime() + MINUTE + SAMPLE_RETENTION_MS]),
    );
    expect((await prisma.groupLagSample.findMany()).map((row) => row.lag)).toEqual([16n, 26n]);
  });
});
