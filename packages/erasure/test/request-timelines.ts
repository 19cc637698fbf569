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
