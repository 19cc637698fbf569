import { createHash } from "node:crypto";
import type { PrismaClient } from "./client";
import type { Prisma } from "./generated/prisma/client";

// The tenant audit hash chain. It lives beside the Prisma client because both the control plane
// (packages/api) and the workers (erasure progress) append to it, and there is one way to do so.

export type AuditTx = Prisma.TransactionClient | PrismaClient;

export interface AuditActor {
  type: "user" | "apiKey" | "system";
  id: string | null;
}

export interface AuditEventInput {
  organizationId: string;
  actor: AuditActor;
  action: string;
  target: { type: string; id: string | null };
  data?: Record<string, unknown>;
  now: Date;
}

/** The hash every tenant's chain starts from. */
export const GENESIS_HASH = "0".repeat(64);

/** JSON with object keys sorted, so the same event always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export interface ChainedFields {
  organizationId: string;
  seq: number;
  actorType: string;
  actorId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  data: unknown;
  createdAt: Date;
}

export function eventHash(prevHash: string, event: ChainedFields): string {
  const body = canonicalJson({
    organizationId: event.organizationId,
    seq: event.seq,
    actorType: event.actorType,
    actorId: event.actorId,
    action: event.action,
    targetType: event.targetType,
    targetId: event.targetId,
    data: event.data,
    createdAt: event.createdAt.toISOString(),
  });
  return createHash("sha256").update(prevHash).update("\n").update(body).digest("hex");
}

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
  const fields: ChainedFields = {
    organizationId: input.organizationId,
    seq: (last?.seq ?? 0) + 1,
    actorType: input.actor.type,
    actorId: input.actor.id,
    action: input.action,
    targetType: input.target.type,
    targetId: input.target.id,
    data: JSON.parse(JSON.stringify(input.data ?? {})),
    createdAt: input.now,
  };
  const prevHash = last?.hash ?? GENESIS_HASH;
  await tx.auditEvent.create({
    data: {
      ...fields,
      data: fields.data as Prisma.InputJsonValue,
      prevHash,
      hash: eventHash(prevHash, fields),
    },
  });
}

/** Re-walks a tenant's chain; returns the seq of the first event whose hash does not match, or null. */
export async function verifyAuditChain(prisma: AuditTx, organizationId: string): Promise<number | null> {
  const events = await prisma.auditEvent.findMany({ where: { organizationId }, orderBy: { seq: "asc" } });
  let prevHash = GENESIS_HASH;
  for (const [i, event] of events.entries()) {
    if (event.seq !== i + 1 || event.prevHash !== prevHash || eventHash(prevHash, event) !== event.hash) {
      return event.seq;
    }
    prevHash = event.hash;
  }
  return null;
}
