import { z } from "zod";
import type { AuditActor, AuditEventInput } from "./audit-chain";
import { deadlineExtensionSchema, objectStoreEvidenceSchema, segmentEvidenceSchema } from "./erasure-columns";
import { erasureStatusSchema } from "./erasure-status";

// The audit events the erasure lifecycle appends to the tenant's hash chain: action → payload.
// Transitions build them (erasure-transitions.ts); readers may parse them with the same schemas.

const isoTime = z.iso.datetime({ offset: true });
const move = { from: erasureStatusSchema, to: erasureStatusSchema };

/** One tombstone as the request's audit trail lists it once written. */
export const writtenTombstoneSchema = z.object({
  topicId: z.string(),
  partition: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  /** Base64. */
  subjectKey: z.string(),
  writtenAt: isoTime,
});
export type WrittenTombstone = z.infer<typeof writtenTombstoneSchema>;

/** A tombstone's scan summarised for the request's purge or expiry event. */
export const tombstoneEvidenceSchema = z.object({
  topicId: z.string(),
  partition: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  subjectKey: z.string(),
  passRequestedAt: isoTime.nullable(),
  verifiedAt: isoTime.nullable(),
  result: z.enum(["absent", "present"]).nullable(),
  bytesScanned: z.number().int().nonnegative(),
  segments: z.array(segmentEvidenceSchema),
  objects: objectStoreEvidenceSchema.optional(),
});
export type TombstoneEvidence = z.infer<typeof tombstoneEvidenceSchema>;

/** A cleaner pass between a tombstone's write and its verified purge (a `CleanerRun` row). */
export const passRunSchema = z.object({
  topicId: z.string().nullable(),
  partition: z.number().int().nullable(),
  status: z.string(),
  trigger: z.string().nullable(),
  startedAt: isoTime,
  finishedAt: isoTime.nullable(),
  bytesRead: z.number(),
  bytesWritten: z.number(),
  /** The partition's closed segments' bytes before − after (older events lack it). */
  reclaimedBytes: z.number().nullable().optional(),
  recordsRemoved: z.number(),
  tombstonesRemoved: z.number(),
});
export type PassRun = z.infer<typeof passRunSchema>;

export const ERASURE_AUDIT_SCHEMAS = {
  "erasure.request.created": z.object({
    subjectKeys: z.array(z.string()),
    topics: z.array(z.string()),
    allCompacted: z.boolean(),
    receivedAt: isoTime,
    deadlineAt: isoTime,
    requester: z.string().nullable(),
    topicsMissingDeadline: z.array(z.string()),
  }),
  "erasure.tombstones.written": z.object({
    ...move,
    reason: z.null(),
    tombstones: z.array(writtenTombstoneSchema),
  }),
  "erasure.pass.run": z.object({ passes: z.array(passRunSchema) }),
  "erasure.purged": z.object({
    ...move,
    evidence: z.array(tombstoneEvidenceSchema),
    /** Negative when the last partition was proven purged after the deadline. */
    beforeDeadlineMs: z.number(),
  }),
  "erasure.tombstone.removed": z.object({ ...move, evidence: z.array(tombstoneEvidenceSchema) }),
  "erasure.closed": z.object(move),
  "erasure.at-risk": z.object({ ...move, reason: z.string() }),
  "erasure.failed": z.object({
    ...move,
    reason: z.string(),
    /** When writing them failed: the tombstones written before the failure. */
    tombstones: z.array(writtenTombstoneSchema).optional(),
  }),
  "erasure.deadline.extended": deadlineExtensionSchema,
} as const;

export type ErasureAction = keyof typeof ERASURE_AUDIT_SCHEMAS;
export const ERASURE_ACTIONS = Object.keys(ERASURE_AUDIT_SCHEMAS) as ErasureAction[];

/** One audit event of the lifecycle: its action and the payload that action carries. */
export type ErasureAuditEvent = {
  [A in ErasureAction]: { action: A; data: z.infer<(typeof ERASURE_AUDIT_SCHEMAS)[A]> };
}[ErasureAction];

/** The audit actions as sentences (the trail keeps its own names in exports). */
export const ERASURE_ACTION_LABELS: Readonly<Record<ErasureAction, string>> = {
  "erasure.request.created": "Request received",
  "erasure.tombstones.written": "Tombstones written",
  "erasure.pass.run": "Cleaner passes ran",
  "erasure.purged": "Verified purged",
  "erasure.tombstone.removed": "Tombstones verified gone",
  "erasure.closed": "Closed",
  "erasure.at-risk": "Marked at risk",
  "erasure.failed": "Marked failed",
  "erasure.deadline.extended": "Deadline extended",
};

export function isErasureAction(action: string): action is ErasureAction {
  return Object.hasOwn(ERASURE_AUDIT_SCHEMAS, action);
}

/**
 * Not a transition: the cleaner passes that led to a purge, appended just before the purge's own
 * event (in its transaction) so the trail shows the work that produced the proof.
 */
export function passesRunEvent(passes: readonly PassRun[]): ErasureAuditEvent {
  return { action: "erasure.pass.run", data: { passes: [...passes] } };
}

/** The chain entry of one lifecycle event: the request it is about, who caused it, when. */
export function requestAuditEntry(
  event: ErasureAuditEvent,
  by: { organizationId: string; actor: AuditActor },
  requestId: string,
  now: Date,
): AuditEventInput {
  return { ...by, target: { type: "erasureRequest", id: requestId }, ...event, now };
}
