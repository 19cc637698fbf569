import { createHash } from "node:crypto";

// The tenant audit trail as a hash chain: every event holds the hash of the one before, so an
// edited or removed event shows. This is the pure part (what is hashed, how, and how a chain is
// checked); @lastword/db appends and reads the rows. A subpath of its own (`@lastword/erasure/
// audit-chain`) because it needs node:crypto and the lifecycle is also bundled for the browser.

export interface AuditActor {
  type: "user" | "apiKey" | "system";
  id: string | null;
}

/** One event to append: who did what to which target, with its payload, at `now`. */
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

/** The fields of a stored event the hash covers (its own hash and the previous one aside). */
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

/** The fields of the next event after `last` (null: the chain is empty), and the hash it links to. */
export function chainNext(
  last: { seq: number; hash: string } | null,
  input: AuditEventInput,
): { fields: ChainedFields; prevHash: string; hash: string } {
  const fields: ChainedFields = {
    organizationId: input.organizationId,
    seq: (last?.seq ?? 0) + 1,
    actorType: input.actor.type,
    actorId: input.actor.id,
    action: input.action,
    targetType: input.target.type,
    targetId: input.target.id,
    // What Postgres will store (and hash on verify): undefined fields dropped, Dates as ISO strings.
    data: JSON.parse(JSON.stringify(input.data ?? {})),
    createdAt: input.now,
  };
  const prevHash = last?.hash ?? GENESIS_HASH;
  return { fields, prevHash, hash: eventHash(prevHash, fields) };
}

/** Walks a tenant's events in seq order; the seq of the first that does not link, or null. */
export function firstBrokenLink(
  events: Iterable<ChainedFields & { prevHash: string; hash: string }>,
): number | null {
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  for (const event of events) {
    if (event.seq !== expectedSeq || event.prevHash !== prevHash || eventHash(prevHash, event) !== event.hash)
      return event.seq;
    prevHash = event.hash;
    expectedSeq++;
  }
  return null;
}
