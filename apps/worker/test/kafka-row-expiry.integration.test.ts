import { ManualClock } from "@lastword/logstore";
import { describe, expect, it } from "vitest";
import { KAFKA_ROW_EXPIRY_INTERVAL_MS } from "../src/kafka/kafka-row-expiry";
import { ProducerIdRepository } from "../src/kafka/producers/producer-ids.repository";
import {
  DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS,
  expireTransactionalIds,
} from "../src/kafka/transactions/txn-expiry";
import { createTestTopic, eventually } from "./test-topics";
import { useWorkerHarness } from "./worker-harness";

// The worker's housekeeping forgets idle Kafka producer ids (a day on the database clock) and
// client sightings older than the console's day (on the worker's injected clock), on Postgres.
const harness = useWorkerHarness({ name: "kafka-row-expiry", secret: "kafka-row-expiry-secret" });
const HOUR = 60 * 60 * 1000;

describe("Kafka row expiry", () => {
  it("removes producer ids idle past a day and sightings older than the console shows, and keeps the rest", async () => {
    const { prisma } = harness.db;
    const { organizationId, topicId } = await createTestTopic(prisma, { partitions: 1 });
    const producers = new ProducerIdRepository(prisma);
    const idleFor = async (hours: number) => {
      const { producerId } = await producers.issue(organizationId);
      await prisma.$executeRaw`
        UPDATE "KafkaProducer" SET "updatedAt" = now() - make_interval(hours => ${hours})
        WHERE "producerId" = ${BigInt(producerId)}`;
      return producerId;
    };
    const fresh = (await producers.issue(organizationId)).producerId;
    const stale = await idleFor(25);
    const nearly = await idleFor(23);
    // Idle a day, then bumped (KIP-360): a bump is use, so the id stays.
    const revived = await idleFor(25);
    expect(await producers.bump(organizationId, revived, 0)).toMatchObject({ kind: "bumped" });

    const clock = new ManualClock();
    const sighting = (clientId: string, agoMs: number) => ({
      topicId,
      role: "producer",
      clientId,
      softwareName: "",
      softwareVersion: "",
      lastSeenAt: new Date(clock.now() - agoMs),
    });
    await prisma.kafkaClientSeen.createMany({
      data: [sighting("gone", 25 * HOUR), sighting("recent", HOUR)],
    });
    const remaining = async () => ({
      producers: (await prisma.kafkaProducer.findMany({ orderBy: { producerId: "asc" } })).map((r) =>
        Number(r.producerId),
      ),
      sightings: (await prisma.kafkaClientSeen.findMany({ orderBy: { clientId: "asc" } })).map(
        (r) => r.clientId,
      ),
    });

    await harness.startWorker({ workerId: "expiry-w1", clock, housekeepingIntervalMs: 50 });
    await eventually("the first pass ran", 10_000, async () => {
      const rows = await remaining();
      return rows.sightings.includes("gone") ? undefined : rows;
    });
    expect(await remaining()).toEqual({ producers: [fresh, nearly, revived], sightings: ["recent"] });
    // A forgotten id is unknown: a client bumping it is issued a fresh one.
    expect(await producers.bump(organizationId, stale, 0)).toEqual({ kind: "unknown" });

    // A day later on the worker's clock (past the next run): the recent sighting is now older than
    // the console shows. The producer ids follow the database clock, which did not move.
    clock.advance(24 * HOUR + KAFKA_ROW_EXPIRY_INTERVAL_MS);
    await eventually("the next pass ran", 10_000, async () => {
      const rows = await remaining();
      return rows.sightings.length === 0 ? rows : undefined;
    });
    expect(await remaining()).toEqual({ producers: [fresh, nearly, revived], sightings: [] });
  });

  it("forgets transactional ids idle past transactional.id.expiration.ms with nothing in flight and no live coordinator, and keeps the rest", async () => {
    const { prisma } = harness.db;
    const { organizationId } = await createTestTopic(prisma, { partitions: 1 });
    const nowMs = Date.now();
    const DAY = 24 * HOUR;
    const row = (transactionalId: string, state: string, idleMs: number, leased = false) => ({
      organizationId,
      transactionalId,
      state,
      producerId: 7n,
      producerEpoch: 1,
      updatedAt: new Date(nowMs - idleMs),
      ...(leased && { ownerWorkerId: "some-worker", leaseExpiresAt: new Date(nowMs + HOUR) }),
    });
    await prisma.kafkaTransaction.createMany({
      data: [
        row("idle-committed", "CompleteCommit", 8 * DAY),
        row("idle-aborted", "CompleteAbort", 8 * DAY),
        row("idle-empty", "Empty", 8 * DAY),
        // A transaction in flight is the coordinator's to finish or time out, however old.
        row("idle-ongoing", "Ongoing", 8 * DAY),
        row("idle-preparing", "PrepareCommit", 8 * DAY),
        row("recent", "CompleteCommit", 6 * DAY),
        // Held by a live coordinator: it is in use.
        row("leased", "Empty", 8 * DAY, true),
      ],
    });
    expect(DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS).toBe(7 * DAY);
    expect(await expireTransactionalIds(prisma, nowMs)).toBe(3);
    const left = await prisma.kafkaTransaction.findMany({
      where: { organizationId },
      orderBy: { transactionalId: "asc" },
    });
    expect(left.map((r) => r.transactionalId)).toEqual([
      "idle-ongoing",
      "idle-preparing",
      "leased",
      "recent",
    ]);
    // Run again, nothing more goes.
    expect(await expireTransactionalIds(prisma, nowMs)).toBe(0);
  });
});
