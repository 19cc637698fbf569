import type { PrismaClient } from "@lastword/db";

/**
 * What a repository of the coordinators' state (groups' offsets, transactions) works with: the
 * database, this worker's id, which its lease rows carry and every fenced write checks, and the
 * worker's clock, which stamps what it writes.
 */
export abstract class CoordinatorRepository {
  protected readonly prisma: PrismaClient;
  protected readonly workerId: string;
  protected readonly now: () => number;

  constructor(prisma: PrismaClient, workerId: string, now: () => number) {
    this.prisma = prisma;
    this.workerId = workerId;
    this.now = now;
  }
}
