import { z } from "zod";
import {
  type ErasureStatus,
  storedErasureStatus,
  storedTombstoneStatus,
  type TombstoneStatus,
} from "./erasure-status";
import { proofDelaySchema } from "./proof-delays";

// What the erasure tables' JSON columns hold. Prisma types them as JsonValue, so every read goes
// through these schemas: a row that does not match is a bug worth a loud error, not a cast.

const isoTime = z.iso.datetime({ offset: true });

/** One deadline extension, as recorded in `ErasureRequest.extensions` and its audit event. */
export const deadlineExtensionSchema = z.object({
  at: isoTime,
  from: isoTime,
  to: isoTime,
  reason: z.string().min(1),
});
export type DeadlineExtension = z.infer<typeof deadlineExtensionSchema>;
export const deadlineExtensionsSchema = z.array(deadlineExtensionSchema);

/**
 * `Worker.objectStore`: a worker's object store and what it keeps of deleted objects, read at
 * start. Old versions kept with no expiry, or past the deadline, keep erased values in the bucket.
 */
export const objectStoreReportSchema = z.object({
  kind: z.enum(["fs", "s3"]),
  versioning: z.enum(["disabled", "enabled", "suspended"]),
  noncurrentExpiryDays: z.number().nonnegative().nullable(),
  /** The worker's proof timings (proof-delays.ts), so the preflight promises what it runs. */
  tickMs: z.number().int().positive().optional(),
  syncIntervalMs: z.number().int().nonnegative().optional(),
  consolidateAfterMs: z.number().int().nonnegative().optional(),
});
export type ObjectStoreReport = z.infer<typeof objectStoreReportSchema>;

/** Whether a topic's configs alone can meet a deadline (the api computes it; `ErasureRequest.preflight`). */
export const preflightSchema = z.object({
  deadlineMs: z.number(),
  schedulerTickMs: z.number(),
  passEstimateMs: z.number(),
  segmentMs: z.number(),
  maxCompactionLagMs: z.number(),
  deleteRetentionMs: z.number(),
  /** Older preflights lack it: it is what holds a targeted rewrite back (never past the deadline). */
  minCompactionLagMs: z.number().optional(),
  /**
   * Worst case, filed → purge proven on every tier: min.compaction.lag.ms, then every wait the proof
   * makes (`delays`), then the bucket's kept versions.
   */
  worstCasePurgeMs: z.number(),
  /** The waits `worstCasePurgeMs` adds up (older preflights lack them). */
  delays: z.array(proofDelaySchema).optional(),
  /** … and the tombstone itself is removed by the pass after its delete horizon. */
  worstCaseTombstoneGoneMs: z.number(),
  meetsDeadline: z.boolean(),
  tombstoneOutlivesDeadline: z.boolean(),
  /** Configs that bring the worst case inside the deadline (half of it, the other half as margin). */
  fix: z.record(z.string(), z.string()).nullable(),
  explanation: z.string(),
  /**
   * How long the bucket keeps an old version of a deleted object: 0 without versioning, the
   * noncurrent-version expiry, or null when versions are kept with no expiry (no deadline holds).
   */
  bucketKeepsVersionsMs: z.number().nullable().optional(),
});
export type Preflight = z.infer<typeof preflightSchema>;
/** Topic name → its preflight when the request was received. */
export const preflightsSchema = z.record(z.string(), preflightSchema);

export const segmentEvidenceSchema = z.object({
  baseOffset: z.number().int().nonnegative(),
  lastOffset: z.number().int(),
  sizeBytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type SegmentEvidence = z.infer<typeof segmentEvidenceSchema>;

/** An object of the partition's manifest the scan covered: its bytes read, or its key filter consulted. */
export const objectEvidenceSchema = z.object({
  key: z.string().min(1),
  baseOffset: z.number().int().nonnegative(),
  lastOffset: z.number().int(),
  sizeBytes: z.number().int().nonnegative(),
  /** Of the partition's bytes in the object, as its manifest row records and the scan found them. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** `scanned`: its bytes were read and hashed; `filtered`: its key filter proved the key absent. */
  check: z.enum(["scanned", "filtered"]),
});
export type ObjectEvidence = z.infer<typeof objectEvidenceSchema>;

/** An object that held the partition's bytes below the tombstone and was deleted from the store. */
export const deletedObjectEvidenceSchema = z.object({
  key: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  baseOffset: z.number().int().nonnegative(),
  lastOffset: z.number().int(),
  /** What replaced it: a cleaner pass, a targeted rewrite, retention, an upload, a consolidation. */
  reason: z.string(),
  deletedAt: isoTime,
});
export type DeletedObjectEvidence = z.infer<typeof deletedObjectEvidenceSchema>;

/**
 * A worker disk that held a copy of the partition: the owner's (scanned above), or a worker that
 * stopped answering (unreachable: it removes the copy before it serves again).
 */
export const cacheEvidenceSchema = z.object({
  workerId: z.string(),
  state: z.enum(["owner", "unreachable"]),
  lastHeartbeatAt: isoTime,
});
export type CacheEvidence = z.infer<typeof cacheEvidenceSchema>;

/** With an object store: the bucket's side of the proof. */
export const objectStoreEvidenceSchema = z.object({
  scanned: z.array(objectEvidenceSchema),
  deleted: z.array(deletedObjectEvidenceSchema),
  caches: z.array(cacheEvidenceSchema),
});
export type ObjectStoreEvidence = z.infer<typeof objectStoreEvidenceSchema>;

/** What one verification scan proved about one key in one partition (`purgeEvidence`, `expiryEvidence`). */
export const scanEvidenceSchema = z.object({
  scannedAt: isoTime,
  partitionLogStart: z.number().int().nonnegative(),
  partitionLogEnd: z.number().int().nonnegative(),
  /** Records of the key were looked for below this offset (the tombstone's), or everywhere when null. */
  belowOffset: z.number().int().nonnegative().nullable(),
  matches: z.array(z.number().int().nonnegative()),
  result: z.enum(["absent", "present"]),
  segments: z.array(segmentEvidenceSchema),
  bytesScanned: z.number().int().nonnegative(),
  /** With an object store: every object holding the partition scanned, those deleted, the disks. */
  objects: objectStoreEvidenceSchema.optional(),
});
export type ScanEvidence = z.infer<typeof scanEvidenceSchema>;

/**
 * A consumer group whose committed offset (the next offset it reads) was not past a tombstone when
 * the tombstone was proven gone: it never saw the delete, so it may still hold the erased value.
 */
export const missedTombstoneSchema = z.object({
  group: z.string().min(1),
  committedOffset: z.number().int().nonnegative(),
});
export type MissedTombstone = z.infer<typeof missedTombstoneSchema>;
/** `ErasureTombstone.missedBy`: recorded with the expiry proof, null before it. */
export const missedBySchema = z.array(missedTombstoneSchema);

/**
 * Whether a group at this committed offset has yet to read the tombstone: a committed offset is
 * the next record the group reads, so a group at the tombstone's own offset has not read it. A
 * negative one (−1/−2, a Kafka client's "no position") is no place in the log at all: where that
 * consumer starts is its reset policy's choice, so it is not counted behind any tombstone (the
 * rule is @lastword/db's committedPosition, which this package cannot import).
 */
export function isBehindTombstone(
  committedOffset: number | bigint,
  tombstoneOffset: number | bigint,
): boolean {
  return committedOffset >= 0 && committedOffset <= tombstoneOffset;
}

/** The columns of an `ErasureRequest` row the lifecycle reads (structural: no Prisma types here). */
export interface ErasureRequestRow {
  status: string;
  receivedAt: Date;
  deadlineAt: Date;
  statusReason: string | null;
  closedAt: Date | null;
  extensions: unknown;
}

/** The lifecycle state of a request row, its JSON parsed. */
export interface ErasureState {
  status: ErasureStatus;
  receivedAt: Date;
  deadlineAt: Date;
  statusReason: string | null;
  closedAt: Date | null;
  extensions: readonly DeadlineExtension[];
}

export function parseErasureRow(row: ErasureRequestRow): ErasureState {
  return {
    status: storedErasureStatus(row.status),
    receivedAt: row.receivedAt,
    deadlineAt: row.deadlineAt,
    statusReason: row.statusReason,
    closedAt: row.closedAt,
    extensions: deadlineExtensionsSchema.parse(row.extensions),
  };
}

/** The columns of an `ErasureTombstone` row the lifecycle reads. */
export interface ErasureTombstoneRow {
  topicId: string;
  partitionIndex: number;
  offset: bigint;
  subjectKey: string;
  status: string;
  writtenAt: Date;
  passRequestedAt: Date | null;
  purgedAt: Date | null;
  purgeEvidence: unknown;
  expiredAt: Date | null;
  expiryEvidence: unknown;
  missedBy: unknown;
  /** Older callers select no such column. */
  waitingFor?: unknown;
}

/** What a tombstone's proof waits for now, written by its worker each tick it changes. */
export const waitingForSchema = z.object({ reason: z.string(), until: z.iso.datetime() });
export type WaitingFor = z.infer<typeof waitingForSchema>;

/** One tombstone as the lifecycle sees it: where it is, how far it got, and the scans that prove it. */
export interface TombstoneFacts {
  topicId: string;
  partition: number;
  offset: number;
  /** Base64, as stored. */
  subjectKey: string;
  status: TombstoneStatus;
  writtenAt: Date;
  passRequestedAt: Date | null;
  purgedAt: Date | null;
  purgeEvidence: ScanEvidence | null;
  expiredAt: Date | null;
  expiryEvidence: ScanEvidence | null;
  /** The groups behind the tombstone when it was proven gone (null until then). */
  missedBy: readonly MissedTombstone[] | null;
  /** What its proof waits for now (null once gone, or before a worker looked). */
  waitingFor: WaitingFor | null;
}

export function parseTombstoneRow(row: ErasureTombstoneRow): TombstoneFacts {
  return {
    topicId: row.topicId,
    partition: row.partitionIndex,
    offset: Number(row.offset),
    subjectKey: row.subjectKey,
    status: storedTombstoneStatus(row.status),
    writtenAt: row.writtenAt,
    passRequestedAt: row.passRequestedAt,
    purgedAt: row.purgedAt,
    purgeEvidence: scanEvidenceSchema.nullable().parse(row.purgeEvidence),
    expiredAt: row.expiredAt,
    expiryEvidence: scanEvidenceSchema.nullable().parse(row.expiryEvidence),
    missedBy: missedBySchema.nullable().parse(row.missedBy),
    waitingFor: waitingForSchema.nullable().parse(row.waitingFor ?? null),
  };
}
