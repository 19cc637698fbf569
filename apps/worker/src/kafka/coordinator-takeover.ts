import type { Logger } from "../logger";

/**
 * Expired leases one renewal tick takes over, so a dead worker's groups and transactional ids
 * spread over the survivors instead of all landing on the first to tick.
 */
const EXPIRED_CLAIMS_PER_TICK = 50;

/**
 * The takeover step of a coordinator's tick (the group coordinator's and the transaction
 * coordinator's): claims leases dead holders left expired, logs each as `message` with its tenant
 * and `key`, and adopts it as held from the moment the claim began — a renewal that started before
 * then may not have seen the claim.
 */
export async function takeOverExpired<L extends { tenantId: string }>(
  leases: { claimExpired(limit: number): Promise<L[]> },
  logger: Logger,
  took: { message: string; key: (lease: L) => Record<string, string> },
  adopt: (lease: L, takenAt: number) => void,
): Promise<void> {
  const takenAt = performance.now();
  for (const lease of await leases.claimExpired(EXPIRED_CLAIMS_PER_TICK)) {
    logger.info({ tenantId: lease.tenantId, ...took.key(lease) }, took.message);
    adopt(lease, takenAt);
  }
}
