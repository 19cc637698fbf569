import type { ErasureAction, ErasureAuditEvent, TombstoneEvidence, WrittenTombstone } from "./erasure-audit";
import type { DeadlineExtension, ErasureState } from "./erasure-columns";
import { DEADLINE_OPEN_STATUSES, type ErasureStatus, INITIAL_ERASURE_STATUS } from "./erasure-status";
import { formatMs } from "./proof-delays";

const DAY_MS = 86_400_000;

/** What can happen to a request; each is a transition of its state. */
export type ErasureEvent =
  | { type: "tombstones-written"; tombstones: readonly WrittenTombstone[] }
  | { type: "tombstones-failed"; reason: string; tombstones: readonly WrittenTombstone[] }
  /** Every partition verified purged; `purgedAt` is the latest of their proofs. */
  | { type: "all-purged"; evidence: readonly TombstoneEvidence[]; purgedAt: Date }
  | { type: "all-expired"; evidence: readonly TombstoneEvidence[] }
  | { type: "close" }
  | { type: "deadline-near"; unpurgedPartitions: number }
  /** At filing: a topic's preflight cannot meet the deadline (the reason names it and its fix). */
  | { type: "filed-at-risk"; reason: string }
  | { type: "deadline-passed" }
  /**
   * More time, with its reason. A failed request whose tombstones were written (`reopens`) comes
   * back to tombstoned: its partitions are still purged and proven, now against the new deadline.
   */
  | { type: "deadline-extended"; deadlineAt: Date; reason: string; tombstonesWritten?: boolean };
export type ErasureEventType = ErasureEvent["type"];

export interface ErasureStep {
  ok: true;
  state: ErasureState;
  /** The one audit event the step appends, in the transaction that stores `state`. */
  audit: ErasureAuditEvent;
}

export type ErasureRefusalCode =
  | "NOT_ALLOWED_FROM_STATUS"
  | "DEADLINE_NOT_IN_FUTURE"
  | "DEADLINE_NOT_LATER"
  | "NOT_DUE";

/** A transition the rules refuse; `message` is a sentence for people. */
export interface ErasureRefusal {
  ok: false;
  code: ErasureRefusalCode;
  message: string;
}

/** The statuses each event may be applied in (the guards): e.g. nothing is purged before it is tombstoned. */
export const ALLOWED_FROM: Readonly<Record<ErasureEventType, readonly ErasureStatus[]>> = {
  "tombstones-written": ["received"],
  "tombstones-failed": ["received"],
  // From failed only when a person re-verifies it (the workers never move a failed request).
  "all-purged": ["tombstoned", "at-risk", "failed"],
  "all-expired": ["purged"],
  close: ["tombstone-expired"],
  "deadline-near": ["tombstoned"],
  "filed-at-risk": ["tombstoned"],
  // Only an unproven request can miss its deadline, and only then (or once it failed) may it get more time.
  "deadline-passed": DEADLINE_OPEN_STATUSES,
  "deadline-extended": [...DEADLINE_OPEN_STATUSES, "failed"],
};

/** The audit action each event's transition appends. */
export const EVENT_ACTIONS = {
  "tombstones-written": "erasure.tombstones.written",
  "tombstones-failed": "erasure.failed",
  "all-purged": "erasure.purged",
  "all-expired": "erasure.tombstone.removed",
  close: "erasure.closed",
  "deadline-near": "erasure.at-risk",
  "filed-at-risk": "erasure.at-risk",
  "deadline-passed": "erasure.failed",
  "deadline-extended": "erasure.deadline.extended",
} as const satisfies Record<ErasureEventType, ErasureAction>;

/** A request still unpurged in the last tenth of its window (at most a day) is at risk. */
export function atRiskWindowMs(receivedAt: Date, deadlineAt: Date): number {
  return Math.min(DAY_MS, 0.1 * (deadlineAt.getTime() - receivedAt.getTime()));
}

export interface ReceiveInput {
  receivedAt: Date;
  deadlineAt: Date;
  /** Base64. */
  subjectKeys: readonly string[];
  topics: readonly string[];
  allCompacted: boolean;
  requester: string | null;
  topicsMissingDeadline: readonly string[];
}

/** Whether a request with this deadline may be received now; null when it may. */
export function receiveRefusal(deadlineAt: Date, now: Date): ErasureRefusal | null {
  return deadlineAt.getTime() <= now.getTime()
    ? refuse("DEADLINE_NOT_IN_FUTURE", "The deadline must be in the future.")
    : null;
}

/** A new request, in its first state, and the event that records it. */
export function receiveErasureRequest(input: ReceiveInput, now: Date): ErasureStep | ErasureRefusal {
  const refusal = receiveRefusal(input.deadlineAt, now);
  if (refusal) return refusal;
  return {
    ok: true,
    state: {
      status: INITIAL_ERASURE_STATUS,
      receivedAt: input.receivedAt,
      deadlineAt: input.deadlineAt,
      statusReason: null,
      closedAt: null,
      extensions: [],
    },
    audit: {
      action: "erasure.request.created",
      data: {
        subjectKeys: [...input.subjectKeys],
        topics: [...input.topics],
        allCompacted: input.allCompacted,
        receivedAt: input.receivedAt.toISOString(),
        deadlineAt: input.deadlineAt.toISOString(),
        requester: input.requester,
        topicsMissingDeadline: [...input.topicsMissingDeadline],
      },
    },
  };
}

/** Whether the rules allow `event` now; null when they do. */
export function refusalOf(state: ErasureState, event: ErasureEvent, now: Date): ErasureRefusal | null {
  // An extension that does not move the deadline is wrong whatever the state: say that first.
  if (event.type === "deadline-extended" && event.deadlineAt.getTime() <= state.deadlineAt.getTime())
    return refuse("DEADLINE_NOT_LATER", "An extension must move the deadline later.");
  if (event.type === "deadline-extended" && event.deadlineAt.getTime() <= now.getTime())
    return refuse("DEADLINE_NOT_IN_FUTURE", "The new deadline must be in the future.");
  if (!ALLOWED_FROM[event.type].includes(state.status))
    return refuse(
      "NOT_ALLOWED_FROM_STATUS",
      event.type === "deadline-extended"
        ? `A ${state.status} request cannot be extended.`
        : `A ${state.status} request cannot take "${event.type}".`,
    );
  if (event.type === "deadline-extended" && state.status === "failed" && !event.tombstonesWritten)
    return refuse(
      "NOT_ALLOWED_FROM_STATUS",
      "This request's tombstones were never written, so more time cannot help it: file a new request.",
    );
  const msLeft = state.deadlineAt.getTime() - now.getTime();
  if (event.type === "deadline-passed" && msLeft >= 0)
    return refuse("NOT_DUE", "The deadline has not passed yet.");
  if (
    event.type === "deadline-near" &&
    (msLeft < 0 || msLeft >= atRiskWindowMs(state.receivedAt, state.deadlineAt))
  )
    return refuse("NOT_DUE", "The deadline is not near yet.");
  return null;
}

/** The state after `event` and the audit event it appends, or why the rules refuse it. */
export function applyErasureEvent(
  state: ErasureState,
  event: ErasureEvent,
  now: Date,
): ErasureStep | ErasureRefusal {
  const refusal = refusalOf(state, event, now);
  if (refusal) return refusal;
  const from = state.status;
  switch (event.type) {
    case "tombstones-written":
      return step(
        { ...state, status: "tombstoned", statusReason: null },
        {
          action: "erasure.tombstones.written",
          data: { from, to: "tombstoned", reason: null, tombstones: [...event.tombstones] },
        },
      );
    case "tombstones-failed":
      return step(
        { ...state, status: "failed", statusReason: event.reason },
        {
          action: "erasure.failed",
          data: { from, to: "failed", reason: event.reason, tombstones: [...event.tombstones] },
        },
      );
    case "all-purged":
      return step(
        { ...state, status: "purged", statusReason: null },
        {
          action: "erasure.purged",
          data: {
            from,
            to: "purged",
            evidence: [...event.evidence],
            beforeDeadlineMs: state.deadlineAt.getTime() - event.purgedAt.getTime(),
          },
        },
      );
    case "all-expired":
      return step(
        { ...state, status: "tombstone-expired" },
        {
          action: "erasure.tombstone.removed",
          data: { from, to: "tombstone-expired", evidence: [...event.evidence] },
        },
      );
    case "close":
      return step(
        { ...state, status: "closed", closedAt: now },
        {
          action: "erasure.closed",
          data: { from, to: "closed" },
        },
      );
    case "deadline-near": {
      const window = formatMs(atRiskWindowMs(state.receivedAt, state.deadlineAt));
      const reason = `${event.unpurgedPartitions} partition(s) not yet verified purged with less than ${window} to the deadline (${formatDate(state.deadlineAt)}).`;
      return step(
        { ...state, status: "at-risk", statusReason: reason },
        {
          action: "erasure.at-risk",
          data: { from, to: "at-risk", reason },
        },
      );
    }
    case "filed-at-risk":
      return step(
        { ...state, status: "at-risk", statusReason: event.reason },
        { action: "erasure.at-risk", data: { from, to: "at-risk", reason: event.reason } },
      );
    case "deadline-passed": {
      const reason =
        from === INITIAL_ERASURE_STATUS
          ? "The tombstones were never written (the request was received but not carried out)."
          : `The deadline (${formatDate(state.deadlineAt)}) passed before every partition was verified purged.`;
      return step(
        { ...state, status: "failed", statusReason: reason },
        {
          action: "erasure.failed",
          data: { from, to: "failed", reason },
        },
      );
    }
    case "deadline-extended": {
      const extension: DeadlineExtension = {
        at: now.toISOString(),
        from: state.deadlineAt.toISOString(),
        to: event.deadlineAt.toISOString(),
        reason: event.reason,
      };
      // More time takes a request out of "at risk" (the window is measured against the new
      // deadline), and a failed one whose tombstones were written back to work.
      const back =
        from === "at-risk" || from === "failed" ? { status: "tombstoned" as const, statusReason: null } : {};
      return step(
        { ...state, ...back, deadlineAt: event.deadlineAt, extensions: [...state.extensions, extension] },
        { action: "erasure.deadline.extended", data: extension },
      );
    }
  }
}

/** A moment as people read it in a reason: "7 Dec 2026, 23:05:12 UTC". */
export function formatDate(date: Date): string {
  return date
    .toLocaleString("en-GB", {
      timeZone: "UTC",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hour12: false,
    })
    .concat(" UTC");
}

function step(state: ErasureState, audit: ErasureAuditEvent): ErasureStep {
  return { ok: true, state, audit };
}

function refuse(code: ErasureRefusalCode, message: string): ErasureRefusal {
  return { ok: false, code, message };
}
