import type { Prisma, PrismaClient } from "@lastword/db";
import { z } from "zod";
import type { Identity } from "../auth/request-identity";
import { auditActorNames } from "./audit-actors";
import { auditRowVisibility } from "./audit-visibility";

/** An event's payload is a JSON object whatever its action (older events predate some fields). */
const dataSchema = z.record(z.string(), z.unknown());

export interface AuditListInput {
  /** An action, or a prefix of one ending in "." ("erasure." for every erasure event). */
  action?: string | undefined;
  actorType?: string | undefined;
  actorId?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  /** ISO times, inclusive. */
  since?: string | undefined;
  until?: string | undefined;
  /** Events before this place in the chain (the previous page's `nextBeforeSeq`). */
  beforeSeq?: number | undefined;
  limit: number;
}

/**
 * A page of the tenant's audit trail, newest first, filtered, each event with its actor named
 * (audit-actors.ts) and both hashes. Invitations' ids and e-mails are shown to callers who manage
 * members only, as the members list does (audit-visibility.ts, the exports' rule too).
 */
export async function listAuditEvents(
  deps: { prisma: PrismaClient },
  identity: Identity,
  input: AuditListInput,
) {
  const where: Prisma.AuditEventWhereInput = {
    organizationId: identity.tenantId,
    ...(input.action &&
      (input.action.endsWith(".") ? { action: { startsWith: input.action } } : { action: input.action })),
    ...(input.actorType && { actorType: input.actorType }),
    ...(input.actorId && { actorId: input.actorId }),
    ...(input.targetType && { targetType: input.targetType }),
    ...(input.targetId && { targetId: input.targetId }),
    ...((input.since || input.until) && {
      createdAt: {
        ...(input.since && { gte: new Date(input.since) }),
        ...(input.until && { lte: new Date(input.until) }),
      },
    }),
    ...(input.beforeSeq !== undefined && { seq: { lt: input.beforeSeq } }),
  };
  const events = await deps.prisma.auditEvent.findMany({
    where,
    orderBy: { seq: "desc" },
    take: input.limit + 1,
  });
  const page = events.slice(0, input.limit);
  const nameOf = await auditActorNames(deps.prisma, identity.tenantId, page);
  const visible = auditRowVisibility(identity);
  return {
    events: page.map((e) => {
      const shown = visible(e);
      return {
        seq: e.seq,
        at: e.createdAt.toISOString(),
        action: e.action,
        actor: nameOf(e),
        targetType: e.targetType,
        targetId: shown.targetId,
        data: dataSchema.parse(shown.data),
        prevHash: e.prevHash,
        hash: e.hash,
      };
    }),
    nextBeforeSeq: events.length > input.limit ? page.at(-1)!.seq : null,
  };
}
