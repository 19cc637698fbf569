import type { PrismaClient } from "@lastword/db";

/**
 * Kafka producer ids are allocated below this bound (the KafkaProducer sequence's MAXVALUE); the
 * REST Idempotency-Key path allocates its producer ids in [2^52, 2^53), so the two never meet in
 * a partition's producer state.
 */
export const KAFKA_PRODUCER_ID_LIMIT = 2 ** 52;
/** Kafka bumps to a fresh producer id instead once an epoch would reach Short.MaxValue. */
const EPOCH_EXHAUSTED = 32766;

export type EpochBump =
  | { kind: "bumped"; producerId: number; producerEpoch: number }
  /** The id is this tenant's but the client's epoch is neither current nor the one just bumped. */
  | { kind: "fenced"; currentEpoch: number }
  /** Unknown to this tenant, or its epochs are used up: the caller issues a fresh id. */
  | { kind: "unknown" };

/**
 * The producer ids InitProducerId issued (the KafkaProducer table): a Postgres sequence makes them
 * unique across every worker and restart, so any worker can answer InitProducerId (kafkajs sends it
 * to whichever broker Metadata names as the controller). Each id belongs to the tenant it was
 * issued to; another tenant's id is unknown here.
 */
export class ProducerIdRepository {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** A fresh producer id at epoch 0, stamped by the database clock (as bumps are: `removeIdle`). */
  async issue(tenantId: string): Promise<{ producerId: number; producerEpoch: number }> {
    const [row] = await this.#prisma.$queryRaw<{ producerId: bigint; epoch: number }[]>`
      INSERT INTO "KafkaProducer" ("organizationId", "updatedAt") VALUES (${tenantId}, now())
      RETURNING "producerId", "epoch"`;
    return { producerId: Number(row!.producerId), producerEpoch: row!.epoch };
  }

  /**
   * Forgets the ids neither issued nor bumped for `idleMs` on the database clock (Kafka's producer
   * id expiration); answers how many. The sequence never hands a forgotten id out again.
   */
  async removeIdle(idleMs: number): Promise<number> {
    return this.#prisma.$executeRaw`
      DELETE FROM "KafkaProducer" WHERE "updatedAt" < now() - make_interval(secs => ${idleMs / 1000})`;
  }

  /**
   * KIP-360's epoch bump for a producer that passes its current id and epoch: the epoch goes up by
   * one. A retry of a bump whose answer was lost (the client still passes the old epoch, the row is
   * one ahead) gets the same answer again, as Kafka's coordinator gives it.
   */
  async bump(tenantId: string, producerId: number, producerEpoch: number): Promise<EpochBump> {
    const id = BigInt(producerId);
    const bumped = await this.#prisma.$queryRaw<{ epoch: number }[]>`
      UPDATE "KafkaProducer" SET "epoch" = "epoch" + 1, "updatedAt" = now()
      WHERE "producerId" = ${id} AND "organizationId" = ${tenantId}
        AND "epoch" = ${producerEpoch} AND "epoch" < ${EPOCH_EXHAUSTED}
      RETURNING "epoch"`;
    if (bumped[0]) return { kind: "bumped", producerId, producerEpoch: bumped[0].epoch };
    const row = await this.#prisma.kafkaProducer.findFirst({
      where: { producerId: id, organizationId: tenantId },
      select: { epoch: true },
    });
    if (!row || row.epoch >= EPOCH_EXHAUSTED) return { kind: "unknown" };
    if (row.epoch === producerEpoch + 1) return { kind: "bumped", producerId, producerEpoch: row.epoch };
    return { kind: "fenced", currentEpoch: row.epoch };
  }
}
