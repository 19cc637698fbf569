import type { PrismaClient } from "@lastword/db";

/** The Worker row: who we are and where our data plane listens, kept alive by heartbeats. */
export class WorkerRegistry {
  readonly #prisma: PrismaClient;
  readonly #workerId: string;

  constructor(prisma: PrismaClient, workerId: string) {
    this.#prisma = prisma;
    this.#workerId = workerId;
  }

  async register(address: string): Promise<void> {
    await this.#prisma.$executeRaw`
      INSERT INTO "Worker" ("id", "address", "startedAt", "heartbeatAt", "stoppedAt")
      VALUES (${this.#workerId}, ${address}, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC', NULL)
      ON CONFLICT ("id") DO UPDATE SET "address" = EXCLUDED."address", "startedAt" = EXCLUDED."startedAt",
        "heartbeatAt" = EXCLUDED."heartbeatAt", "stoppedAt" = NULL`;
  }

  /** False when our row is gone or marked stopped: the caller re-registers. */
  async heartbeat(): Promise<boolean> {
    const updated = await this.#prisma.$executeRaw`
      UPDATE "Worker" SET "heartbeatAt" = now() AT TIME ZONE 'UTC'
      WHERE "id" = ${this.#workerId} AND "stoppedAt" IS NULL`;
    return updated === 1;
  }

  async markStopped(): Promise<void> {
    await this.#prisma.$executeRaw`
      UPDATE "Worker" SET "stoppedAt" = now() AT TIME ZONE 'UTC' WHERE "id" = ${this.#workerId}`;
  }
}
