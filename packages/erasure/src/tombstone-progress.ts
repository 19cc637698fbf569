import type { TombstoneEvidence } from "./erasure-audit";
import type { ErasureState, TombstoneFacts } from "./erasure-columns";
import {
  GONE_TOMBSTONE_STATUS,
  INITIAL_ERASURE_STATUS,
  isAwaitingPurge,
  type ScanKind,
  WRITTEN_TOMBSTONE_STATUS,
} from "./erasure-status";
import { atRiskWindowMs, type ErasureEvent } from "./erasure-transitions";

/** A tombstone's scan as the request's purge or expiry event lists it. */
export function tombstoneEvidence(t: TombstoneFacts, scan: ScanKind): TombstoneEvidence {
  const evidence = scan === "purge" ? t.purgeEvidence : t.expiryEvidence;
  return {
    topicId: t.topicId,
    partition: t.partition,
    offset: t.offset,
    subjectKey: t.subjectKey,
    passRequestedAt: t.passRequestedAt?.toISOString() ?? null,
    verifiedAt: (scan === "purge" ? t.purgedAt : t.expiredAt)?.toISOString() ?? null,
    result: evidence?.result ?? null,
    bytesScanned: evidence?.bytesScanned ?? 0,
    segments: evidence?.segments ?? [],
    ...(evidence?.objects && { objects: evidence.objects }),
  };
}

/**
 * The event a request's tombstones call for next, or null when nothing is due: what the workers
 * recorded on them (verified purged, verified gone) and the clock move a request with nobody
 * reading it. Proof wins over the clock: a request whose last partition was proven purged is
 * purged even if the proof came late (its event says by how much).
 */
export function nextProgressEvent(
  state: ErasureState,
  tombstones: readonly TombstoneFacts[],
  now: Date,
): ErasureEvent | null {
  const nowMs = now.getTime();
  const unpurged = tombstones.filter((t) => t.status === WRITTEN_TOMBSTONE_STATUS).length;
  if (isAwaitingPurge(state.status) && tombstones.length > 0 && unpurged === 0) {
    const purgedAt = Math.max(...tombstones.map((t) => t.purgedAt?.getTime() ?? nowMs));
    // Proven only after the deadline (a late tick, a loaded worker): the deadline was missed, and
    // the record says so first; an extension or a re-verification then takes it to purged.
    if (purgedAt > state.deadlineAt.getTime()) return { type: "deadline-passed" };
    return {
      type: "all-purged",
      evidence: tombstones.map((t) => tombstoneEvidence(t, "purge")),
      purgedAt: new Date(purgedAt),
    };
  }
  switch (state.status) {
    case "purged":
      return tombstones.every((t) => t.status === GONE_TOMBSTONE_STATUS)
        ? { type: "all-expired", evidence: tombstones.map((t) => tombstoneEvidence(t, "expiry")) }
        : null;
    case "tombstone-expired":
      return { type: "close" };
    case "closed":
    case "failed":
      return null;
  }
  // Received (tombstones never written: the control plane died in between) or awaiting purge.
  const msLeft = state.deadlineAt.getTime() - nowMs;
  if (msLeft < 0) return { type: "deadline-passed" };
  if (state.status === INITIAL_ERASURE_STATUS) return null;
  if (state.status === "tombstoned" && msLeft < atRiskWindowMs(state.receivedAt, state.deadlineAt))
    return { type: "deadline-near", unpurgedPartitions: unpurged };
  return null;
}
