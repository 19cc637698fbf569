import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Logger } from "../logger";
import type { Ownership } from "../ownership/ownership-room";
import { WorkerSession } from "../ownership/worker-session";
import type { OpenLog } from "./hosted-log";
import { withKeyIndex } from "./indexed-log";
import { OwnershipLoop, type OwnershipOptions } from "./ownership-loop";
import { type HostDurability, PartitionHost } from "./partition-host";
import { TombstoneAudit } from "./tombstone-audit";

export interface HostingDeps {
  prisma: PrismaClient;
  ownership: Ownership;
  workerId: string;
  dataDir: string;
  openLog: OpenLog;
  leaseTtlMs: number;
  logger: Logger;
  clock: Clock;
  /** The durable home of partitions, when the worker has an object store. */
  durability: HostDurability | undefined;
}

/** The partitions this worker hosts, and the audit of the tombstones written to them. */
export function createHosting(deps: HostingDeps): { host: PartitionHost; audit: TombstoneAudit } {
  const { prisma, workerId, logger, clock } = deps;
  const host = new PartitionHost({
    durability: deps.durability,
    dataDir: deps.dataDir,
    workerId,
    openLog: withKeyIndex(deps.openLog),
    leases: deps.ownership.leases,
    fence: deps.ownership.fence,
    logger,
    fenceMarginMs: Math.floor(deps.leaseTtlMs / 4),
    clock,
  });
  const audit = new TombstoneAudit({ prisma, workerId, logger, clock });
  // Audit events an earlier owner of a partition left queued (it died before Postgres had them).
  host.onOpened((slot) => audit.recover(slot.audited));
  return { host, audit };
}

/**
 * How long our own session must have been held before peers' ended sessions count as deaths: all
 * sessions drop together when Postgres restarts, and reconnecting takes each worker a moment.
 */
const SESSION_SETTLE_MS = 2_000;

export type OwnershipLoopConfig = Omit<OwnershipOptions, "trustSessions" | "leases" | "registry">;

/**
 * Starts claiming and renewing partitions: the session peers watch for our death is opened first,
 * then the first claim tick runs, then the loop.
 */
export async function startOwnershipLoop(
  ownership: Ownership,
  options: OwnershipLoopConfig & { databaseUrl: string; nodeId: number },
): Promise<{ loop: OwnershipLoop; session: WorkerSession }> {
  const { databaseUrl, nodeId, ...loopOptions } = options;
  // Assigned right below: the loop asks it from its ticks, which start after.
  let session: WorkerSession | null = null;
  const loop = new OwnershipLoop({
    ...loopOptions,
    leases: ownership.leases,
    registry: ownership.registry,
    trustSessions: () => (session?.heldForMs() ?? 0) >= SESSION_SETTLE_MS,
  });
  // Held for as long as this process lives: a peer that finds it gone claims our partitions at once.
  session = new WorkerSession({ databaseUrl, nodeId, logger: options.logger, onReleased: () => loop.wake() });
  await session.open();
  await loop.tick();
  loop.start();
  return { loop, session };
}
