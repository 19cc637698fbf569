/** What the event loop hands a pool thread: one whole compressed batch (its own buffer) and the bound. */
export interface InflateTask {
  batch: Uint8Array;
  maxBytes: number;
  /**
   * False when the event loop reads only the records' keys, offsets, timestamps and tombstones (a
   * batch stored as sent): the thread answers the batch's skeleton (`recordSkeleton`), its values
   * emptied, instead of the whole plain copy.
   */
  values: boolean;
}

/**
 * A pool thread's answer: the batch plain (header kept, codec bits cleared, CRC recomputed; only
 * its skeleton when the task did not ask for values) with `inflatedBytes` its records inflated to
 * (what the quotas count, the skeleton's values included), or why
 * not — `limit` (it would inflate past the bound: `inflatedBytes` is how far it got before it was
 * stopped), `corrupt` (it does not decompress) or `unsupported` (no such codec). `threadMs`: how
 * long the thread worked on it, which the tenant's request-time quota is charged. A thread moves
 * `plain` to the event loop, not clones it (its own ArrayBuffer).
 */
export type InflateOutcome =
  | { ok: true; plain: Uint8Array; inflatedBytes: number; threadMs: number }
  | InflateRefusal;

export interface InflateRefusal {
  ok: false;
  kind: "limit" | "corrupt" | "unsupported";
  message: string;
  inflatedBytes: number;
  threadMs: number;
}
