import type { CleanerRun } from "./generated/prisma/client";

/**
 * A CleanerRun row's outcome as JSON (times as ISO text, byte counts as numbers): what the API's
 * cleaner-run list and the erasure audit trail's pass evidence both report about a pass.
 */
export function cleanerRunFigures(run: CleanerRun) {
  return {
    status: run.status,
    trigger: run.trigger,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    bytesRead: Number(run.bytesRead),
    bytesWritten: Number(run.bytesWritten),
    /** What the partition shrank by (its closed segments before − after); null for older rows. */
    reclaimedBytes:
      run.bytesBefore === null || run.bytesAfter === null ? null : Number(run.bytesBefore - run.bytesAfter),
    recordsRemoved: run.recordsRemoved,
    tombstonesRemoved: run.tombstonesRemoved,
  };
}
