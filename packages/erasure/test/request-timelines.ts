import type { ErasureAction } from "../src/erasure-audit";

/**
 * The audit trail of a request that ran to its end, in order: what the end-to-end tests of the
 * control plane and the worker expect (`@lastword/erasure/testing`).
 */
export const CLOSED_REQUEST_TIMELINE: readonly ErasureAction[] = [
  "erasure.request.created",
  "erasure.tombstones.written",
  "erasure.pass.run",
  "erasure.purged",
  "erasure.tombstone.removed",
  "erasure.closed",
];

/** The same, for a request filed on a topic whose preflight misses the deadline: at risk from filing. */
export const CLOSED_AT_RISK_TIMELINE: readonly ErasureAction[] = [
  "erasure.request.created",
  "erasure.tombstones.written",
  "erasure.at-risk",
  "erasure.pass.run",
  "erasure.purged",
  "erasure.tombstone.removed",
  "erasure.closed",
];
