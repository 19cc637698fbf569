import { ManualClock } from "@lastword/logstore";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { DEFAULT_OFFSETS_RETENTION_MS } from "../src/kafka/groups/group-expiry";
import { KafkaRowExpiry } from "../src/kafka/kafka-row-expiry";
import { GONE_WORKER_KEEP_MS } from "../src/ownership/gone-workers";
import { createTestTopic } from "./test-topics";
import { useWorkerHarness } from "./worker-harness";

// Rows that would otherwise only grow, reaped by the worker's housekeeping pass on real Postgres:
// empty Kafka groups' offsets, groups and leases past offsets.retention.minutes (commit times on
// the worker's injected clock, lease lapses on the database clock, both set back by SQL), and the
// rows of workers gone a week that nothing names.
const harness = useWorkerHarness({ name: "row-reaping", secret: "row-reaping-secret" });
const DAY = 24 * 60 * 60 * 1000;

describe("row reaping", () => {
  it("expires empty groups' offsets, groups and leases by Kafka's rule, and gone workers nothing names", async () => {
    const { prisma } = harness.db;
    const { organizationId: org, topicId } = await createTestTopic(prisma, { partitions: 1 });
    const partition = await prisma.partition.findFirstOrThrow({ where: { topicId } });
    const clock = new ManualClock(Date.UTC(2026, 11, 1));
    const daysAgo = (days: number) => new Date(clock.now() - days * DAY);
    expect(DEFAULT_OFFSETS_RETENTION_MS).toBe(7 * DAY);

    await prisma.$executeRaw`
      INSERT INTO "Worker" ("id", "address", "heartbeatAt", "stoppedAt") VALUES
        ('gone', 'x', now() AT TIME ZONE 'UTC' - interval '8 days', now() AT TIME ZONE 'UTC' - interval '8 days'),
        ('gone-crashed', 'x', now() AT TIME ZONE 'UTC' - interval '8 days', NULL),
        ('gone-with-copy', 'x', now() AT TIME ZONE 'UTC' - interval '8 days', NULL),
        ('gone-with-partition', 'x', now() AT TIME ZONE 'UTC' - interval '8 days', NULL),
        ('gone-with-group', 'x', now() AT TIME ZONE 'UTC' - interval '8 days', NULL),
        ('stopped-lately', 'x', now() AT TIME ZONE 'UTC' - interval '6 days', now() AT TIME ZONE 'UTC' - interval '6 days'),
        ('live', 'x', now() AT TIME ZONE 'UTC', NULL)`;
    await prisma.partitionCache.create({ data: { partitionId: partition.id, workerId: "gone-with-copy" } });
    await prisma.partition.update({
      where: { id: partition.id },
      data: { ownerWorkerId: "gone-with-partition" },
    });

    // (group, lease lapsed this many days ago — null: held live —, its owner, commits' ages in days)
    const groups: [string, number | null, string | null, number[]][] = [
      ["emptied-long-ago", 8, null, [8, 9]],
      ["committed-lately", 8, null, [8, 1]],
      ["emptied-lately", 1, null, [8]],
      ["live", null, "live", [30]],
      // A holder that died: its lease expired 8 days ago (empty since), or a day ago (not yet).
      ["dead-holder", 8, "gone", [8]],
      ["held-by-gone", 1, "gone-with-group", [8]],
      ["lease-only", 8, null, []],
      ["lease-only-lately", 1, null, []],
    ];
    for (const [name, lapsed, owner, commits] of groups) {
      await prisma.$executeRaw`
        INSERT INTO "KafkaGroup" ("organizationId", "groupId", "ownerWorkerId", "epoch", "generation", "leaseExpiresAt")
        VALUES (${org}, ${name}, ${owner}, 1, 3, now() AT TIME ZONE 'UTC' - ${lapsed ?? -1} * interval '1 day')`;
      if (commits.length === 0) continue;
      const group = await prisma.consumerGroup.create({ data: { organizationId: org, name } });
      for (const [i, age] of commits.entries()) {
        await prisma.consumerGroupOffset.create({
          data: { groupId: group.id, topicId, partitionIndex: i, offset: 10n, committedAt: daysAgo(age) },
        });
      }
    }
    // A REST consumer group (no KafkaGroup row): the Kafka rule is not applied to it.
    const rest = await prisma.consumerGroup.create({ data: { organizationId: org, name: "rest" } });
    await prisma.consumerGroupOffset.create({
      data: { groupId: rest.id, topicId, partitionIndex: 0, offset: 1n, committedAt: daysAgo(30) },
    });

    const state = async () => ({
      leases: (await prisma.kafkaGroup.findMany({ orderBy: { groupId: "asc" } })).map((g) => g.groupId),
      offsets: (
        await prisma.consumerGroupOffset.findMany({
          include: { group: true },
          orderBy: [{ group: { name: "asc" } }, { partitionIndex: "asc" }],
        })
      ).map((o) => `${o.group.name}/${o.partitionIndex}`),
      workers: (await prisma.worker.findMany({ orderBy: { id: "asc" } })).map((w) => w.id),
    });

    await new KafkaRowExpiry({ prisma, clock, logger: pino({ level: "silent" }) }).runIfDue();
    expect(await state()).toEqual({
      leases: ["committed-lately", "emptied-lately", "held-by-gone", "lease-only-lately", "live"],
      offsets: ["committed-lately/1", "emptied-lately/0", "held-by-gone/0", "live/0", "rest/0"],
      workers: ["gone-with-copy", "gone-with-group", "gone-with-partition", "live", "stopped-lately"],
    });
    // The groups left without offsets are gone (Kafka's Dead); the others stay.
    expect((await prisma.consumerGroup.findMany({ orderBy: { name: "asc" } })).map((g) => g.name)).toEqual([
      "committed-lately",
      "emptied-lately",
      "held-by-gone",
      "live",
      "rest",
    ]);
    expect(GONE_WORKER_KEEP_MS).toBe(7 * DAY);

    // A pass runs at most once per interval: a week later on the worker's clock the lately
    // committed offset has aged past retention too (its group emptied 8 days ago on the database
    // clock), and its group and lease follow it.
    clock.advance(7 * DAY);
    await new KafkaRowExpiry({ prisma, clock, logger: pino({ level: "silent" }) }).runIfDue();
    expect((await state()).leases).not.toContain("committed-lately");
    expect((await state()).offsets).not.toContain("committed-lately/1");
  });
});
