import { type AuditEventInput, chainNext, firstBrokenLink } from "@lastword/erasure/audit-chain";
import type { PrismaClient } from "./client";
import type { Prisma } from "./generated/prisma/client";

// The tenant audit chain's rows (hashing and checking are @lastword/erasure/audit-chain). Here
// because both the control plane and the workers (erasure progress, tombstone audit) append.

export type AuditTx = Prisma.TransactionClient | PrismaClient;

/**
 * Appends one event to the tenant's hash chain. Must run inside the transaction that makes the
 * change it records; a per-tenant advisory lock serialises appends so seq and prevHash never fork.
 */
export async function appendAuditEvent(tx: Prisma.TransactionClient, input: AuditEventInput): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`audit:${input.organizationId}`}, 0))`;
  const last = await tx.auditEvent.findFirst({
    where: { organizationId: input.organizationId },
    orderBy: { seq: "desc" },
    select: { seq: true, hash: true },
  });
  const { fields, prevHash, hash } = chainNext(last, input);
  await tx.auditEvent.create({
    data: { ...fields, data: fields.data as Prisma.InputJsonValue, prevHash, hash },
  });
}

/** Re-walks a tenant's chain; returns the seq of the first event whose hash does not match, or null. */
export async function verifyAuditChain(prisma: AuditTx, organizationId: string): Promise<number | null> {
  const events = await prisma.auditEvent.findMany({ where: { organizationId }, orderBy: { seq: "asc" } });
  return firstBrokenLink(events);
}
