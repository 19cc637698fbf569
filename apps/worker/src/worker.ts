import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { flushUsage } from "@lastword/api/usage-counter";
import type { DataPlaneClient } from "@lastword/dataplane";
import { createPrisma, type PrismaClient } from "@lastword/db";
import { DEFAULT_SCHEDULER_TICK_MS } from "@lastword/jobs";
import { type Clock, systemClock } from "@lastword/logstore";
import type { ObjectStore } from "@lastword/object-store";
import { createCleaner } from "./cleaner/cleaner-room";
import type { CleanerScheduler } from "./cleaner/cleaner-scheduler";
import { startDataPlane } from "./dataplane/dataplane-room";
import { closeServer } from "./dataplane/dataplane-server";
import { createDurability, describeBucket } from "./durability/durability-room";
import type { ObjectStorage, ObjectStorageTimings } from "./durability/object-storage";
import { createErasureGuard } from "./erasure/erasure-room";
import { crashAt, type FaultPoint } from "./fault-points";
import type { OpenLog } from "./hosting/hosted-log";
import { createHosting, startOwnershipLoop } from "./hosting/hosting-room";
import type { OwnershipLoop } from "./hosting/ownership-loop";
import type { PartitionHost } from "./hosting/partition-host";
import type { TombstoneAudit } from "./hosting/tombstone-audit";
import type { GroupCoordinator } from "./kafka/groups/group-coordinator";
import { describeGroup } from "./kafka/groups/group-description";
import type { KafkaListener } from "./kafka/kafka-listener";
import { type KafkaConfig, type KafkaRoom, startKafka } from "./kafka/kafka-room";
import { KafkaRowExpiry } from "./kafka/kafka-row-expiry";
import type { TxnCoordinator } from "./kafka/transactions/txn-coordinator";
import { createLogger, type Logger, type LogLevel } from "./logger";
import { WorkerMetrics } from "./metrics/metrics";
import { createOwnership, type Ownership } from "./ownership/ownership-room";
import { removeOrphanedPartitions, removeStaleCopies } from "./ownership/partition-janitor";
import type { WorkerSession } from "./ownership/worker-session";
import { ShutdownSequence } from "./shutdown";

export interface WorkerConfig {
  databaseUrl: string;
  dataDir: string;
  /** Shared with web (LASTWORD_INTERNAL_SECRET); every data-plane call must carry it. */
  secret: string;
  openLog: OpenLog;
  /** What the worker's logs, cleaner passes and audit events read the time from; the system clock by default. */
  clock?: Clock;
  workerId?: string;
  /** Data-plane bind address; loopback by default. Port 0 binds an ephemeral port. */
  host?: string;
  port?: number;
  /** Host name other processes reach the data plane by, when it differs from the bind address
   *  (containers bind 0.0.0.0 and are reached by service name). */
  advertisedHost?: string;
  leaseTtlMs?: number;
  claimIntervalMs?: number;
  maxClaimsPerTick?: number;
  housekeepingIntervalMs?: number;
  logger?: Logger;
  logLevel?: LogLevel;
  /** Cleaner and retention scheduling through BullMQ; without it passes run only when requested. */
  scheduling?: SchedulingConfig;
  /** The Kafka listener; without it this worker is no broker (Metadata does not list it). */
  kafka?: KafkaConfig;
  /** Test-only crash point (LASTWORD_FAULT_POINT, fault-points.ts). */
  faultPoint?: FaultPoint;
  /**
   * The durable home of partitions (LASTWORD_OBJECT_STORE). Without it a produce is acknowledged on
   * the local fsync and a partition lives only on this worker's disk. Closed by the worker at stop.
   */
  objectStore?: ObjectStore;
  /**
   * With an object store: the commit window (WORKER_COMMIT_WINDOW_MS), the orphan sweeper (15 min
   * grace, every 10 min), segment tiering and the superseded objects' grace (durability/).
   */
  objectTimings?: ObjectStorageTimings;
  /**
   * With an object store: an erasure rewrites only the segments whose key filter may hold the key
   * and its proof reads only those objects (default); false makes it request a pass over the whole
   * partition and read every object, as if the filters did not exist.
   */
  erasureKeyFilters?: boolean;
}

export interface SchedulingConfig {
  redisUrl: string;
  redisPrefix: string;
  tickMs?: number;
  cleanerThreads?: number;
  /** First retry delay after a failed pass (doubles per failure; held after CLEANER_MAX_ATTEMPTS). */
  cleanerBackoffBaseMs?: number;
}

export interface RunningWorker {
  id: string;
  /** The data-plane base URL actually bound, as registered in the Worker table. */
  address: string;
  /** The Kafka listener as advertised (host and port clients bootstrap with) and this broker's node id. */
  kafka: { host: string; port: number; nodeId: number; tls: boolean } | null;
  /** Partitions currently hosted (claimed; open, opening or failed to open). */
  ownedPartitions(): string[];
  /** Resolves once every tombstone audit event queued so far is in Postgres (tests). */
  auditIdle(): Promise<void>;
  /** Graceful: stop taking work, close logs, release leases, mark the worker stopped, close the database. */
  stop(): Promise<void>;
  /** As if the process died: stops at once, leaves its leases to expire (takeover tests). */
  kill(): Promise<void>;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;
export const DEFAULT_CLAIM_INTERVAL_MS = 500;

/**
 * Starts a worker in this process: registers, claims partitions, serves the data plane. Composed
 * from the rooms' factories, bottom up (ownership < hosting < durability < cleaner < erasure <
 * dataplane < kafka); each room's parts are built in its own folder.
 */
export async function startWorker(config: WorkerConfig): Promise<RunningWorker> {
  const id = config.workerId ?? `worker-${randomBytes(5).toString("hex")}`;
  const logger = config.logger ?? createLogger(id, config.logLevel ?? "info");
  const leaseTtlMs = config.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const clock = config.clock ?? systemClock;
  const fault = config.faultPoint ? crashAt(config.faultPoint) : undefined;
  const prisma = createPrisma(config.databaseUrl, { maxConnections: 10 });
  const ownership = createOwnership(prisma, config.databaseUrl, id, leaseTtlMs);
  // What every room's factory takes.
  const base = { prisma, workerId: id, leaseTtlMs, logger, clock, fault };
  const objects = createDurability(config, { ...base, host: () => host });
  const { host, audit } = createHosting({
    ...base,
    ownership,
    dataDir: config.dataDir,
    openLog: config.openLog,
    durability: objects?.partitions,
  });
  const metrics = new WorkerMetrics(config.scheduling?.cleanerThreads ?? 1, clock);
  const tickMs = config.scheduling?.tickMs ?? DEFAULT_SCHEDULER_TICK_MS;
  const cleaner = createCleaner(
    {
      ...base,
      host,
      audit,
      metrics,
      filesChanged: (partitionId) => objects?.tiering.touch(partitionId),
      scheduling: config.scheduling && { ...config.scheduling, tickMs },
    },
    (passes, requestClean) =>
      createErasureGuard({
        ...base,
        host,
        objects,
        passes,
        requestClean,
        tickMs,
        keyFilters: config.erasureKeyFilters !== false,
      }),
  );
  // Set once the Kafka listener is up; until then (and without one) this worker coordinates no group.
  let kafka: KafkaRoom | null = null;
  const { server, address } = await startDataPlane(
    {
      host,
      cleaner,
      audit,
      metrics,
      secret: config.secret,
      workerId: id,
      logger,
      describeGroups: (tenantId) => kafka?.groups.groupsOf(tenantId).map(describeGroup) ?? [],
      ...(fault && { fault }),
    },
    config,
  );
  kafka = config.kafka
    ? await startKafka(config.kafka, {
        ...base,
        host,
        audit,
        secret: config.secret,
        registry: metrics.registry,
        fetched: metrics.fetched,
      })
    : null;
  if (kafka) {
    const { listener } = kafka;
    ownership.registry.advertiseKafka(kafka.advertised.host, kafka.advertised.port);
    ownership.registry.reportKafkaConnections(() => listener.tenantConnections());
  }
  if (config.objectStore && objects) {
    await describeBucket(config.objectStore, objects, ownership.registry, tickMs, logger);
  }
  // Leases a previous run under the same id still holds: nothing of them is open here.
  await ownership.leases.releaseAll();
  const nodeId = await ownership.registry.register(address);
  kafka?.setNodeId(nodeId);
  const rowExpiry = new KafkaRowExpiry({ prisma, clock, logger });
  const { loop, session } = await startOwnershipLoop(ownership, {
    ...base,
    databaseUrl: config.databaseUrl,
    nodeId,
    host,
    address,
    claimIntervalMs: config.claimIntervalMs ?? DEFAULT_CLAIM_INTERVAL_MS,
    maxClaimsPerTick: config.maxClaimsPerTick ?? 256,
    housekeeping: async () => {
      objects?.sweeper.maybeSweep();
      await removeOrphanedPartitions(config.dataDir, prisma, logger);
      if (objects) await removeStaleCopies(config.dataDir, prisma, id, logger);
      await rowExpiry.runIfDue();
    },
    housekeepingIntervalMs: config.housekeepingIntervalMs ?? 30_000,
    onRenewalLate: () => metrics.leaseRenewalsLate.inc(),
  });
  cleaner.scheduler?.start();
  objects?.start(host);
  const kafkaAddress = kafka ? { ...kafka.advertised, nodeId, tls: kafka.listener.tls } : null;
  logger.info({ address, kafka: kafkaAddress, dataDir: config.dataDir, leaseTtlMs }, "worker ready");
  const parts: Parts = {
    kafka: kafka?.listener ?? null,
    groups: kafka?.groups ?? null,
    transactions: kafka?.transactions ?? null,
    peers: kafka?.dataPlane ?? null,
    loop,
    server,
    scheduler: cleaner.scheduler,
    host,
    ...ownership,
    prisma,
    objects,
    audit,
    session,
  };
  const shutdown = gracefulShutdown(parts);
  return {
    id,
    address,
    kafka: kafkaAddress,
    ownedPartitions: () => host.ids(),
    auditIdle: () => audit.idle(),
    stop: () => shutdown.run(logger).then(() => logger.info("worker stopped")),
    kill: () => kill(parts),
  };
}

interface Parts {
  kafka: KafkaListener | null;
  groups: GroupCoordinator | null;
  transactions: TxnCoordinator | null;
  /** The data-plane client the transaction coordinator sends markers to other workers with. */
  peers: DataPlaneClient | null;
  loop: OwnershipLoop;
  server: Server;
  scheduler: CleanerScheduler | null;
  host: PartitionHost;
  leases: Ownership["leases"];
  registry: Ownership["registry"];
  prisma: PrismaClient;
  fence: Ownership["fence"];
  objects: ObjectStorage | null;
  audit: TombstoneAudit;
  session: WorkerSession;
}

/**
 * Stop taking work, finish what is in flight (requests, running passes, the commit window), hand
 * the partitions over (released and announced: peers claim them at once), and only then the
 * cleanup nobody waits on. Each step is bounded, so a stuck one costs its bound, not the handover.
 */
function gracefulShutdown(parts: Parts): ShutdownSequence {
  const sequence = new ShutdownSequence();
  sequence.add("release group coordinator leases", () => parts.groups?.stop());
  // Released, not kept to expire: peers adopt the ids with a transaction open at their next tick.
  sequence.add("release transaction coordinator leases", () => parts.transactions?.stop());
  sequence.add("stop ownership loop", () => parts.loop.stop());
  sequence.add("stop data plane", () => closeServer(parts.server, DATA_PLANE_DRAIN_MS));
  sequence.add("stop job workers", () => parts.scheduler?.stopWorking());
  sequence.add("stop object storage loops", () => parts.objects?.stop());
  // Kafka connections stay open through the handover: a request for a partition closed here is
  // answered NOT_LEADER_OR_FOLLOWER and Metadata names the new leader, where a closed connection
  // would only send clients retrying at a broker that is going away.
  sequence.add("close partition logs", () => parts.host.closeAll());
  // Stopped first: peers woken by the release no longer count us for the fair share, so they take
  // every partition released rather than stopping at a share computed with us still in it.
  sequence.add("mark worker stopped", () => parts.registry.markStopped());
  sequence.add("release leases", () => parts.leases.releaseAll().then(() => undefined));
  sequence.add("stop kafka listener", () => parts.kafka?.close());
  sequence.add("remove job queues", () => parts.scheduler?.stop());
  sequence.add("write queued audit events", () => parts.audit.stop(AUDIT_FLUSH_MS));
  // The Kafka Fetch bytes counted since the last flush (at most USAGE_FLUSH_DELAY_MS of them).
  sequence.add("write spooled usage", () => flushUsage(parts.prisma, USAGE_FLUSH_MS).then(() => undefined));
  sequence.add("close database and object store", () => closeConnections(parts));
  return sequence;
}

/** How long requests in flight on the data plane may take to finish once a stop began. */
const DATA_PLANE_DRAIN_MS = 1_000;

/** Bounded below the shutdown step limit (10 s). */
const AUDIT_FLUSH_MS = 8_000;
const USAGE_FLUSH_MS = 5_000;

async function kill(parts: Omit<Parts, "leases" | "registry">): Promise<void> {
  parts.audit.halt();
  parts.groups?.halt();
  parts.transactions?.halt();
  await parts.kafka?.close();
  parts.server.closeAllConnections();
  parts.server.close();
  await parts.loop.stop();
  await parts.scheduler?.halt();
  await parts.objects?.stop();
  await parts.host.closeAll();
  await closeConnections(parts);
}

async function closeConnections(parts: Omit<Parts, "leases" | "registry">): Promise<void> {
  await parts.objects?.stop();
  parts.peers?.close();
  await Promise.all([
    parts.prisma.$disconnect(),
    parts.fence.close(),
    parts.objects?.close(),
    parts.session.close(),
  ]);
}
