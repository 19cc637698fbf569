import { RECENT_CLIENTS_MS } from "@lastword/api/topic-admin";
import type { PrismaClient } from "@lastword/db";
import { type Clock, DEFAULT_PRODUCER_ID_EXPIRATION_MS } from "@lastword/logstore";
import type { Logger } from "../logger";
import { deleteGoneWorkers } from "../ownership/gone-workers";
import { pruneSightings } from "./client-sightings";
import { expireEmptyGroups } from "./groups/group-expiry";
import { ProducerIdRepository } from "./producers/producer-ids.repository";
import { expireTransactionalIds } from "./transactions/txn-expiry";

/** How often, on the worker's clock, the Kafka listener's bookkeeping rows are pruned. */
export const KAFKA_ROW_EXPIRY_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Forgets the Kafka listener's rows nobody reads any more: producer ids idle past Kafka's
 * `producer.id.expiration.ms` default (a day, on the database clock: Postgres stamps the rows),
 * client sightings older than the console's "recently" (on the worker's clock, which stamps them),
 * empty groups' offsets, groups and leases past `offsets.retention.minutes` (group-expiry.ts),
 * transactional ids idle past `transactional.id.expiration.ms` (txn-expiry.ts), and the rows of
 * workers gone a week that nothing names (gone-workers.ts).
 * A client that later bumps the epoch of a forgotten id is issued a fresh one, as a Kafka broker
 * does for an expired id. Run from the worker's housekeeping, at most once per interval; every
 * worker runs it, and a delete another worker already made deletes nothing.
 */
export class KafkaRowExpiry {
  readonly #prisma: PrismaClient;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #dueAt = Number.NEGATIVE_INFINITY;

  constructor(deps: { prisma: PrismaClient; clock: Clock; logger: Logger }) {
    this.#prisma = deps.prisma;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
  }

  /** Prunes when due; a failure (Postgres away) is thrown to housekeeping and retried at its next run. */
  async runIfDue(): Promise<void> {
    const now = this.#clock.now();
    if (now < this.#dueAt) return;
    const producers = await new ProducerIdRepository(this.#prisma).removeIdle(
      DEFAULT_PRODUCER_ID_EXPIRATION_MS,
    );
    const sightings = await pruneSightings(this.#prisma, new Date(now - RECENT_CLIENTS_MS));
    const groups = await expireEmptyGroups(this.#prisma, now);
    const transactionalIds = await expireTransactionalIds(this.#prisma, now);
    const workers = await deleteGoneWorkers(this.#prisma);
    this.#dueAt = now + KAFKA_ROW_EXPIRY_INTERVAL_MS;
    const groupRows = groups.offsets + groups.groups + groups.leases;
    if (producers > 0 || sightings > 0 || groupRows > 0 || transactionalIds > 0 || workers > 0) {
      this.#logger.info(
        { producers, sightings, ...groups, transactionalIds, workers },
        "removed expired Kafka producer ids, client sightings, empty groups, transactional ids and gone workers",
      );
    }
  }
}
