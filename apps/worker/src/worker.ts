import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { createPrisma, type PrismaClient } from "@lastword/db";
import { closeServer, createDataPlaneServer, listen } from "./dataplane-server";
import type { OpenLog } from "./hosted-log";
import { LeaseRepository } from "./lease.repository";
import { createLogger, type Logger, type LogLevel } from "./logger";
import { OwnershipLoop } from "./ownership";
import { PartitionHost } from "./partition-host";
import { removeOrphanedPartitions } from "./partition-janitor";
import { ShutdownSequence } from "./shutdown";
import { WorkerRegistry } from "./worker-registry";

export interface WorkerConfig {
  databaseUrl: string;
  dataDir: string;
  /** Shared with web (LASTWORD_INTERNAL_SECRET); every data-plane call must carry it. */
  secret: string;
  openLog: OpenLog;
  workerId?: string;
  /** Data-plane bind address; loopback by default. Port 0 binds an ephemeral port. */
  host?: string;
  port?: number;
  leaseTtlMs?: number;
  claimIntervalMs?: number;
  maxClaimsPerTick?: number;
  housekeepingIntervalMs?: number;
  logger?: Logger;
  logLevel?: LogLevel;
}

export interface RunningWorker {
  id: string;
  /** The data-plane base URL actually bound, as registered in the Worker table. */
  address: string;
  /** Partitions currently hosted (claimed; open, opening or failed to open). */
  ownedPartitions(): string[];
  /** Graceful: stop taking work, close logs, release leases, mark the worker stopped, close the database. */
  stop(): Promise<void>;
  /** As if the process died: stops at once, leaves its leases to expire (takeover tests). */
  kill(): Promise<void>;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;
export const DEFAULT_CLAIM_INTERVAL_MS = 500;

/** Starts a worker in this process: registers, claims partitions, serves the data plane. */
export async function startWorker(config: WorkerConfig): Promise<RunningWorker> {
  const id = config.workerId ?? `worker-${randomBytes(5).toString("hex")}`;
  const logger = config.logger ?? createLogger(id, config.logLevel ?? "info");
  const leaseTtlMs = config.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const prisma = createPrisma(config.databaseUrl, { maxConnections: 10 });
  const leases = new LeaseRepository(prisma, id, leaseTtlMs);
  const registry = new WorkerRegistry(prisma, id);
  const host = new PartitionHost({
    dataDir: config.dataDir,
    openLog: config.openLog,
    leases,
    logger,
    fenceMarginMs: Math.floor(leaseTtlMs / 4),
  });
  const server = createDataPlaneServer({ host, secret: config.secret, workerId: id, logger });
  const address = await listen(server, config.host ?? "127.0.0.1", config.port ?? 0);
  // Leases a previous run under the same id still holds: nothing of them is open here.
  await leases.releaseAll();
  await registry.register(address);
  const loop = new OwnershipLoop({
    leases,
    registry,
    host,
    logger,
    address,
    leaseTtlMs,
    claimIntervalMs: config.claimIntervalMs ?? DEFAULT_CLAIM_INTERVAL_MS,
    maxClaimsPerTick: config.maxClaimsPerTick ?? 256,
    housekeeping: () => removeOrphanedPartitions(config.dataDir, prisma, logger).then(() => undefined),
    housekeepingIntervalMs: config.housekeepingIntervalMs ?? 30_000,
  });
  await loop.tick();
  loop.start();
  logger.info({ address, dataDir: config.dataDir, leaseTtlMs }, "worker ready");
  const shutdown = gracefulShutdown({ loop, server, host, leases, registry, prisma });
  return {
    id,
    address,
    ownedPartitions: () => host.ids(),
    stop: () => shutdown.run(logger).then(() => logger.info("worker stopped")),
    kill: () => kill({ loop, server, host, prisma }),
  };
}

interface Parts {
  loop: OwnershipLoop;
  server: Server;
  host: PartitionHost;
  leases: LeaseRepository;
  registry: WorkerRegistry;
  prisma: PrismaClient;
}

function gracefulShutdown(parts: Parts): ShutdownSequence {
  const sequence = new ShutdownSequence();
  sequence.add("stop ownership loop", () => parts.loop.stop());
  sequence.add("stop data plane", () => closeServer(parts.server));
  sequence.add("close partition logs", () => parts.host.closeAll());
  sequence.add("release leases", () => parts.leases.releaseAll().then(() => undefined));
  sequence.add("mark worker stopped", () => parts.registry.markStopped());
  sequence.add("close database", () => parts.prisma.$disconnect());
  return sequence;
}

async function kill(parts: Omit<Parts, "leases" | "registry">): Promise<void> {
  parts.server.closeAllConnections();
  parts.server.close();
  await parts.loop.stop();
  await parts.host.closeAll();
  await parts.prisma.$disconnect();
}
