import { z } from "zod";

/** The path every request walks (DESIGN §5), in the order the console shows it. */
export const ERASURE_STAGES = ["received", "tombstoned", "purged", "tombstone-expired", "closed"] as const;
export type ErasureStage = (typeof ERASURE_STAGES)[number];
/** Off the path: at risk (unpurged late in its window), failed (the deadline passed unproven). */
export const ERASURE_DETOURS = ["at-risk", "failed"] as const;

/** Every state an erasure request can be in; the database stores the same words (enum `ErasureStatus`). */
export const ERASURE_STATUSES = [...ERASURE_STAGES, ...ERASURE_DETOURS] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];
export const erasureStatusSchema = z.enum(ERASURE_STATUSES);

/** Where a new request starts (the column default). */
export const INITIAL_ERASURE_STATUS = ERASURE_STAGES[0];

export const ERASURE_STATUS_LABELS: Readonly<Record<ErasureStatus, string>> = {
  received: "Received",
  tombstoned: "Tombstoned",
  purged: "Purged",
  "tombstone-expired": "Tombstone expired",
  closed: "Closed",
  "at-risk": "At risk",
  failed: "Failed",
};

const TERMINAL: readonly ErasureStatus[] = ["closed", "failed"];
/** Nothing proven purged yet: the deadline binds (see isDeadlineOpen). */
export const DEADLINE_OPEN_STATUSES: readonly ErasureStatus[] = ["received", "tombstoned", "at-risk"];
const AWAITING_PURGE: readonly ErasureStatus[] = ["tombstoned", "at-risk"];
const NEEDS_ATTENTION: readonly ErasureStatus[] = ["at-risk", "failed"];

/**
 * The workers never move a closed or failed request again; a person may reopen a failed one whose
 * tombstones were written (an extension), or re-verify it once its partitions are proven purged.
 */
export function isTerminal(status: ErasureStatus): boolean {
  return TERMINAL.includes(status);
}

/**
 * The deadline still binds: nothing is proven purged yet, so the countdown matters and the
 * deadline may still be extended. Once purged, the legal obligation is met.
 */
export function isDeadlineOpen(status: ErasureStatus): boolean {
  return DEADLINE_OPEN_STATUSES.includes(status);
}

/** Tombstones written, some partition not yet verified purged. */
export function isAwaitingPurge(status: ErasureStatus): boolean {
  return AWAITING_PURGE.includes(status);
}

/** The two states a person has to look at. */
export function needsAttention(status: ErasureStatus): boolean {
  return NEEDS_ATTENTION.includes(status);
}

/** The statuses the workers still advance on their tick. */
export const ADVANCING_ERASURE_STATUSES: readonly ErasureStatus[] = ERASURE_STATUSES.filter(
  (status) => !isTerminal(status),
);

/**
 * The stage a status stands at on the path: at risk is still tombstoned; failed left the path.
 * A transition never moves a request more than one stage forward, nor back.
 */
export function stageOf(status: ErasureStatus): ErasureStage | null {
  if (status === "at-risk") return "tombstoned";
  if (status === "failed") return null;
  return status;
}

/** What proves each stage reached: the request itself, its written tombstones, the two scans, closing. */
export const STAGE_PROOF = {
  received: "request",
  tombstoned: "tombstones",
  purged: "purge",
  "tombstone-expired": "expiry",
  closed: "close",
} as const satisfies Record<ErasureStage, string>;
export type StageProof = (typeof STAGE_PROOF)[ErasureStage];
/** The two verification scans a worker runs per tombstone. */
export type ScanKind = "purge" | "expiry";

/**
 * One tombstone in one partition walks the middle of the request's path: written, verified
 * purged (no older value below it), verified gone (the tombstone itself removed).
 */
export const TOMBSTONE_STATUSES = [
  "tombstoned",
  "purged",
  "tombstone-expired",
] as const satisfies readonly ErasureStage[];
export type TombstoneStatus = (typeof TOMBSTONE_STATUSES)[number];
export const tombstoneStatusSchema = z.enum(TOMBSTONE_STATUSES);
export const WRITTEN_TOMBSTONE_STATUS = TOMBSTONE_STATUSES[0];
export const GONE_TOMBSTONE_STATUS = TOMBSTONE_STATUSES[2];
/** The tombstones a worker still scans, with what the next scan must prove and where it moves them. */
export const TOMBSTONE_SCANS = {
  tombstoned: { scan: "purge", next: "purged" },
  purged: { scan: "expiry", next: "tombstone-expired" },
} as const satisfies Partial<Record<TombstoneStatus, { scan: ScanKind; next: TombstoneStatus }>>;
export type ScannedTombstoneStatus = keyof typeof TOMBSTONE_SCANS;
export const SCANNED_TOMBSTONE_STATUSES = Object.keys(TOMBSTONE_SCANS) as ScannedTombstoneStatus[];

export function isTombstoneScanned(status: TombstoneStatus): status is ScannedTombstoneStatus {
  return status in TOMBSTONE_SCANS;
}

/**
 * Postgres enum labels may hold a hyphen, Prisma enum members may not: the schema names them with
 * underscores and maps each to the hyphenated label (`tombstone_expired @map("tombstone-expired")`),
 * so rows keep the words above and the generated client speaks the underscored form. These two
 * functions are the only crossing between the spellings; the type makes tsc check it against the
 * client's enum wherever a query uses it.
 */
export type StoredSpelling<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}_${StoredSpelling<Tail>}`
  : S;
export type StoredErasureStatus = StoredSpelling<ErasureStatus>;
export type StoredTombstoneStatus = StoredSpelling<TombstoneStatus>;

export function toStored<S extends ErasureStatus>(status: S): StoredSpelling<S> {
  return status.replaceAll("-", "_") as StoredSpelling<S>;
}

export function storedErasureStatus(stored: string): ErasureStatus {
  return erasureStatusSchema.parse(stored.replaceAll("_", "-"));
}

export function storedTombstoneStatus(stored: string): TombstoneStatus {
  return tombstoneStatusSchema.parse(stored.replaceAll("_", "-"));
}
