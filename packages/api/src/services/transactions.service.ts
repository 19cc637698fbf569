import type { PrismaClient } from "@lastword/db";
import type { z } from "zod";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";
import { auditAs } from "./audit-as";
import type { listTransactionsOutput } from "./transactions.schema";

export interface TransactionDeps {
  prisma: PrismaClient;
  clock: Clock;
}

type Listed = z.infer<typeof listTransactionsOutput>["transactions"][number];

/**
 * Every transactional id of the tenant with its state, timeout and last update, open ones first
 * (the console's transactions page and `GET /transactions`). Another tenant's ids are never read:
 * the rows are keyed by organization.
 */
export async function listTransactions(deps: TransactionDeps, identity: Identity) {
  const rows = await deps.prisma.$queryRaw<
    {
      transactionalId: string;
      state: Listed["state"];
      producerId: bigint;
      producerEpoch: number;
      timeoutMs: number;
      startedAt: Date | null;
      updatedAt: Date;
      partitions: { topic: string; partition: number }[];
      coordinator: string | null;
      abortRequestedAt: Date | null;
    }[]
  >`
    SELECT "transactionalId", "state", "producerId", "producerEpoch", "timeoutMs", "startedAt",
           "updatedAt", "partitions", "abortRequestedAt",
           CASE WHEN "leaseExpiresAt" > (now() AT TIME ZONE 'UTC') THEN "ownerWorkerId" END AS "coordinator"
    FROM "KafkaTransaction" WHERE "organizationId" = ${identity.tenantId}
    ORDER BY ("state" IN ('Ongoing', 'PrepareCommit', 'PrepareAbort')) DESC, "transactionalId"`;
  const transactions: Listed[] = rows.map((r) => ({
    transactionalId: r.transactionalId,
    state: r.state,
    producerId: Number(r.producerId),
    producerEpoch: r.producerEpoch,
    timeoutMs: r.timeoutMs,
    startedAt: r.startedAt?.toISOString() ?? null,
    updatedAt: r.updatedAt.toISOString(),
    partitions: r.partitions.map((p) => ({ topic: p.topic, partition: p.partition })),
    coordinator: r.coordinator,
    abortRequestedAt: r.abortRequestedAt?.toISOString() ?? null,
  }));
  return { transactions };
}

/**
 * An operator's abort of a hung transaction: recorded on the row with its audit event in one SQL
 * transaction; the id's coordinator (or the worker that adopts it) aborts it at its next tick as a
 * timeout would, bumping the producer's epoch so the producer is fenced. Only an Ongoing
 * transaction can be aborted so (one being completed is already decided).
 */
export async function abortTransaction(deps: TransactionDeps, identity: Identity, transactionalId: string) {
  const now = new Date(deps.clock.now());
  return deps.prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ state: string; producerId: bigint; producerEpoch: number }[]>`
      SELECT "state", "producerId", "producerEpoch" FROM "KafkaTransaction"
      WHERE "organizationId" = ${identity.tenantId} AND "transactionalId" = ${transactionalId}
      FOR UPDATE`;
    const row = rows[0];
    if (!row) {
      throw new AppError("TRANSACTION_NOT_FOUND", `Transactional id "${transactionalId}" does not exist.`);
    }
    if (row.state !== "Ongoing") {
      throw new AppError(
        "TRANSACTION_NOT_OPEN",
        `Transactional id "${transactionalId}" has no open transaction to abort (it is ${row.state}).`,
      );
    }
    await tx.kafkaTransaction.update({
      where: { organizationId_transactionalId: { organizationId: identity.tenantId, transactionalId } },
      data: { abortRequestedAt: now },
    });
    await auditAs(tx, identity, {
      action: "transaction.abortRequested",
      target: { type: "transactionalId", id: transactionalId },
      data: { producerId: Number(row.producerId), producerEpoch: row.producerEpoch },
      now,
    });
    return { transactionalId, abortRequested: true as const };
  });
}
