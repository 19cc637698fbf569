import { appendAuditEvent, type Prisma } from "@lastword/db";
import type { AuditEventInput } from "@lastword/erasure/audit-chain";
import type { Identity } from "../auth/request-identity";

/**
 * Appends an event done by this caller in its own tenant: the chain and the actor always come from
 * the request's identity, never from input. Runs inside the transaction that makes the change.
 */
export function auditAs(
  tx: Prisma.TransactionClient,
  identity: Identity,
  event: Omit<AuditEventInput, "organizationId" | "actor">,
): Promise<void> {
  return appendAuditEvent(tx, { organizationId: identity.tenantId, actor: identity.actor, ...event });
}
