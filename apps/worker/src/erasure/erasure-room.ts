import type { PrismaClient } from "@lastword/db";
import { DEFAULT_PROOF_TIMINGS, proofDelays, totalDelayMs } from "@lastword/erasure";
import type { CleanerPasses } from "../cleaner/cleaner-pass";
import type { ObjectStorage } from "../durability/object-storage";
import type { PartitionHost } from "../hosting/partition-host";
import type { Logger } from "../logger";
import { closedBasesBelow, ErasureGuard } from "./erasure-guard";

export interface ErasureDeps {
  prisma: PrismaClient;
  host: PartitionHost;
  objects: ObjectStorage | null;
  passes: CleanerPasses;
  requestClean(partitionId: string, epoch: number): Promise<void>;
  tickMs: number;
  /** Rewrite only the segments whose key filter may hold the key (default), or whole partitions. */
  keyFilters: boolean;
  logger: Logger;
}

/** The guard of pending erasures that the cleaner's scheduler ticks (erasure-guard.ts). */
export function createErasureGuard(deps: ErasureDeps): ErasureGuard {
  const { host, objects, passes, tickMs } = deps;
  return new ErasureGuard({
    prisma: deps.prisma,
    host,
    tickMs,
    proofMs: totalDelayMs(
      proofDelays({ tickMs, passMs: DEFAULT_PROOF_TIMINGS.passMs, objects: objects?.tiering.proofTimings }),
    ),
    lastCleanAt: passes.lastCleanAt,
    completedPasses: passes.completedPasses,
    requestClean: deps.requestClean,
    logger: deps.logger,
    ...(objects && {
      objects: objects.evidence,
      deleteReplaced: (partitionId, below) => objects.eraseReplaced(partitionId, below),
      consolidateAfterMs: objects.tiering.proofTimings.consolidateAfterMs,
    }),
    ...(deps.keyFilters && {
      targeted: async (slot, log, key, belowOffset) =>
        passes.purge({
          partitionId: slot.partitionId,
          epoch: slot.epoch,
          key,
          belowOffset,
          // The rewrite runs when the deadline calls for it (erasure-guard.ts): min lag is not a reason to wait then.
          ignoreMinCompactionLag: true,
          bases: objects
            ? await objects.evidence.candidates(slot.partitionId, key, belowOffset, await log.segments())
            : closedBasesBelow(await log.segments(), belowOffset),
        }),
    }),
  });
}
