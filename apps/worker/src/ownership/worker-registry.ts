import type { PrismaClient } from "@lastword/db";
import type { ObjectStoreReport } from "@lastword/erasure";

/** The Worker row: who we are and where our data plane listens, kept alive by heartbeats. */
export class WorkerRegistry {
  readonly #prisma: PrismaClient;
  readonly #workerId: string;
  #kafka: { host: string; port: number } | null = null;
  #objectStore: ObjectStoreReport | null = null;
  #connections: (() => ReadonlyMap<string, number>) | null = null;

  constructor(prisma: PrismaClient, workerId: string) {
    this.#prisma = prisma;
    this.#workerId = workerId;
  }

  /** The Kafka listener's advertised address, written with every (re-)registration. */
  advertiseKafka(host: string, port: number): void {
    this.#kafka = { host, port };
  }

  /**
   * Where the Kafka listener's open connections per tenant are read, written with every heartbeat
   * (Worker.kafkaConnections): the console's overview sums them over live workers, as of the
   * heartbeat, which is the only figure of them outside this process's metrics.
   */
  reportKafkaConnections(source: () => ReadonlyMap<string, number>): void {
    this.#connections = source;
  }

  #connectionsJson(): string | null {
    return this.#connections === null ? null : JSON.stringify(Object.fromEntries(this.#connections()));
  }

  /** The object store and what it keeps of deleted objects, written with every (re-)registration. */
  describeObjectStore(report: ObjectStoreReport): void {
    this.#objectStore = report;
  }

  /**
   * Upserts our row; returns our Kafka node id (stable for a worker id: the row keeps it). The row
   * says this worker keeps a session lock (worker-session.ts), so peers may read its absence as death.
   */
  async register(address: string): Promise<number> {
    const kafkaHost = this.#kafka?.host ?? null;
    const kafkaPort = this.#kafka?.port ?? null;
    const objectStore = this.#objectStore === null ? null : JSON.stringify(this.#objectStore);
    const connections = this.#connectionsJson();
    const rows = await this.#prisma.$queryRaw<{ nodeId: number }[]>`
      INSERT INTO "Worker" ("id", "address", "startedAt", "heartbeatAt", "stoppedAt", "kafkaHost", "kafkaPort", "objectStore", "sessionLock", "kafkaConnections")
      VALUES (${this.#workerId}, ${address}, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', NULL,
        ${kafkaHost}, ${kafkaPort}, ${objectStore}::jsonb, TRUE, ${connections}::jsonb)
      ON CONFLICT ("id") DO UPDATE SET "address" = EXCLUDED."address", "startedAt" = EXCLUDED."startedAt",
        "heartbeatAt" = EXCLUDED."heartbeatAt", "stoppedAt" = NULL,
        "kafkaHost" = EXCLUDED."kafkaHost", "kafkaPort" = EXCLUDED."kafkaPort",
        "objectStore" = EXCLUDED."objectStore", "sessionLock" = TRUE,
        "kafkaConnections" = EXCLUDED."kafkaConnections"
      RETURNING "nodeId"`;
    return rows[0]!.nodeId;
  }

  /** False when our row is gone or marked stopped: the caller re-registers. */
  async heartbeat(): Promise<boolean> {
    const connections = this.#connectionsJson();
    const updated = await this.#prisma.$executeRaw`
      UPDATE "Worker" SET "heartbeatAt" = now() AT TIME ZONE 'UTC', "kafkaConnections" = ${connections}::jsonb
      WHERE "id" = ${this.#workerId} AND "stoppedAt" IS NULL`;
    return updated === 1;
  }

  async markStopped(): Promise<void> {
    await this.#prisma.$executeRaw`
      UPDATE "Worker" SET "stoppedAt" = now() AT TIME ZONE 'UTC' WHERE "id" = ${this.#workerId}`;
  }
}
