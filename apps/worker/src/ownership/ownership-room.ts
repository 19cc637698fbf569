import type { PrismaClient } from "@lastword/db";
import { FenceRepository } from "./fence.repository";
import { LeaseRepository } from "./lease.repository";
import { WorkerRegistry } from "./worker-registry";

/** The ownership room's parts a worker is composed from (worker.ts). */
export interface Ownership {
  leases: LeaseRepository;
  registry: WorkerRegistry;
  fence: FenceRepository;
}

/** This worker's leases, its row in the fleet, and the fence against a stale owner's writes. */
export function createOwnership(
  prisma: PrismaClient,
  databaseUrl: string,
  workerId: string,
  leaseTtlMs: number,
): Ownership {
  return {
    leases: new LeaseRepository(prisma, workerId, leaseTtlMs),
    registry: new WorkerRegistry(prisma, workerId),
    fence: new FenceRepository(databaseUrl, workerId),
  };
}
