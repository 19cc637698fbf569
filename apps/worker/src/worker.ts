import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { tenantQuota } from "@lastword/api/tenant-quota";
import { DataPlaneClient } from "@lastword/dataplane";
import { createPrisma, type PrismaClient } from "@lastword/db";
import { DEFAULT_PROOF_TIMINGS, proofDelays, totalDelayMs } from "@lastword/erasure";
import { DEFAULT_SCHEDULER_TICK_MS } from "@lastword/jobs";
import { type Clock, systemClock } from "@lastword/logstore";
import type { ObjectStore } from "@lastword/object-store";
import type { Registry } from "prom-client";
import { CLEANER_MAX_ATTEMPTS, CleanerHealthBook } from "./cleaner/cleaner-health";
import { CleanerPasses } from "./cleaner/cleaner-pass";
import { CleanerRunRepository } from "./cleaner/cleaner-run.repository";
import { CleanerScheduler } from "./cleaner/cleaner-scheduler";
import type { CleanerView } from "./dataplane/dataplane-handlers";
import { closeServer, createDataPlaneServer, listen } from "./dataplane/dataplane-server";
import { ObjectStorage, type ObjectStorageTimings } from "./durability/object-storage";
import { closedBasesBelow, ErasureGuard } from "./erasure/erasure-guard";
import { type CrashHook, crashAt, type FaultPoint } from "./fault-points";
import type { OpenLog } from "./hosting/hosted-log";
import { withKeyIndex } from "./hosting/indexed-log";
import { OwnershipLoop } from "./hosting/ownership-loop";
import { PartitionHost } from "./hosting/partition-host";
import { TombstoneAudit } from "./hosting/tombstone-audit";
import { DEFAULT_INFLATE_POOL, InflatePool, type InflatePoolConfig } from "./inflation/inflate-pool";
import { AppendSignal } from "./kafka/append-signal";
import { ClientSightings } from "./kafka/client-sightings";
import { DEFAULT_GROUP_TIMINGS, GroupCoordinator } from "./kafka/groups/group-coordinator";
import { describeGroup } from "./kafka/groups/group-description";
import { GroupLeaseRepository } from "./kafka/groups/group-lease.repository";
import { GroupOffsetsRepository } from "./kafka/groups/group-offsets.repository";
import type { GroupTimings } from "./kafka/groups/group-state";
import { KafkaCatalog } from "./kafka/kafka-catalog";
import { type KafkaListener, type KafkaListenerConfig, startKafkaListener } from "./kafka/kafka-listener";
import { KafkaPrincipals } from "./kafka/kafka-principals";
import { type KafkaQuotaConfig, KafkaQuotas } from "./kafka/kafka-quotas";
import { KafkaRowExpiry } from "./kafka/kafka-row-expiry";
import { LatestViews } from "./kafka/latest-view";
import { ProduceInflation } from "./kafka/produce-inflation";
import { ProducerIdRepository } from "./kafka/producers/producer-ids.repository";
import type { TestFaults } from "./kafka/test-faults";
import { TxnCoordinator } from "./kafka/transactions/txn-coordinator";
import { TxnLeaseRepository } from "./kafka/transactions/txn-lease.repository";
import { markerWriter } from "./kafka/transactions/txn-markers";
import { TxnStateRepository } from "./kafka/transactions/txn-state.repository";
import { createLogger, type Logger, type LogLevel } from "./logger";
import type { FetchTally } from "./metrics/fetch-tally";
import { WorkerMetrics } from "./metrics/metrics";
import { PartitionStatsRepository } from "./metrics/partition-stats.repository";
import { registerTxnMetrics } from "./metrics/txn-metrics";
import { FenceRepository } from "./ownership/fence.repository";
import { LeaseRepository } from "./ownership/lease.repository";
import { removeOrphanedPartitions, removeStaleCopies } from "./ownership/partition-janitor";
import { WorkerRegistry } from "./ownership/worker-registry";
import { WorkerSession } from "./ownership/worker-session";
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
  kafka?: KafkaListenerConfig & {
    advertisedHost?: string;
    groups?: Partial<GroupTimings>;
    /** Tests only (WORKER_KAFKA_TEST_FAULTS): requests answered with injected errors. */
    testFaults?: TestFaults;
    /** Where the tenants' produce quotas are counted; without it nothing is throttled. */
    quotas?: KafkaQuotaConfig;
    /** How often the clients seen per topic are written (CLIENT_SIGHTINGS_FLUSH_MS by default). */
    clientSightingsFlushMs?: number;
    /** The threads compressed Produce batches are inflated in (DEFAULT_INFLATE_POOL by default). */
    inflatePool?: Partial<InflatePoolConfig>;
  };
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
/**
 * How long our own session must have been held before peers' ended sessions count as deaths: all
 * sessions drop together when Postgres restarts, and reconnecting takes each worker a moment.
 */
const SESSION_SETTLE_MS = 2_000;
export const DEFAULT_CLAIM_INTERVAL_MS = 500;

/** Starts a worker in this process: registers, claims partitions, serves the data plane. */
export async function startWorker(config: WorkerConfig): Promise<RunningWorker> {
  const id = config.workerId ?? `worker-${randomBytes(5).toString("hex")}`;
  const logger = config.logger ?? createLogger(id, config.logLevel ?? "info");
  const leaseTtlMs = config.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const clock = config.clock ?? systemClock;
  const fault = config.faultPoint ? crashAt(config.faultPoint) : undefined;
  const prisma = createPrisma(config.databaseUrl, { maxConnections: 10 });
  const leases = new LeaseRepository(prisma, id, leaseTtlMs);
  const registry = new WorkerRegistry(prisma, id);
  const fence = new FenceRepository(config.databaseUrl, id);
  const objects = config.objectStore
    ? new ObjectStorage({
        store: config.objectStore,
        databaseUrl: config.databaseUrl,
        workerId: id,
        liveWithinMs: 2 * leaseTtlMs,
        keyFilters: config.erasureKeyFilters !== false,
        logger,
        clock,
        host: () => host,
        ...config.objectTimings,
        ...(fault && { fault }),
      })
    : null;
  const host: PartitionHost = new PartitionHost({
    durability: objects?.partitions,
    dataDir: config.dataDir,
    workerId: id,
    openLog: withKeyIndex(config.openLog),
    leases,
    fence,
    logger,
    fenceMarginMs: Math.floor(leaseTtlMs / 4),
    clock,
  });
  const audit = new TombstoneAudit({ prisma, workerId: id, logger, clock });
  // Audit events an earlier owner of a partition left queued (it died before Postgres had them).
  host.onOpened((slot) => audit.recover(slot.audited));
  const metrics = new WorkerMetrics(config.scheduling?.cleanerThreads ?? 1, clock);
  const health = new CleanerHealthBook(CLEANER_MAX_ATTEMPTS, config.scheduling?.cleanerBackoffBaseMs);
  const passes = new CleanerPasses({
    host,
    health,
    runs: new CleanerRunRepository(prisma, id, clock),
    audit,
    metrics,
    logger,
    clock,
    filesChanged: (partitionId) => objects?.tiering.touch(partitionId),
    ...(fault && { fault }),
  });
  const tickMs = config.scheduling?.tickMs ?? DEFAULT_SCHEDULER_TICK_MS;
  const scheduler = config.scheduling
    ? new CleanerScheduler({
        ...config.scheduling,
        tickMs,
        cleanerThreads: config.scheduling.cleanerThreads ?? 1,
        workerId: id,
        host,
        health,
        passes,
        stats: new PartitionStatsRepository(prisma, id, clock, metrics.fetched),
        metrics,
        logger,
        clock,
        erasure: new ErasureGuard({
          prisma,
          host,
          tickMs,
          proofMs: totalDelayMs(
            proofDelays({
              tickMs,
              passMs: DEFAULT_PROOF_TIMINGS.passMs,
              objects: objects?.tiering.proofTimings,
            }),
          ),
          lastCleanAt: passes.lastCleanAt,
          completedPasses: passes.completedPasses,
          requestClean: (partitionId, epoch) => cleaner.requestClean(partitionId, epoch),
          logger,
          ...(objects && {
            objects: objects.evidence,
            deleteReplaced: (partitionId, below) => objects.eraseReplaced(partitionId, below),
            consolidateAfterMs: objects.tiering.proofTimings.consolidateAfterMs,
          }),
          ...(config.erasureKeyFilters !== false && {
            targeted: async (slot, log, key, belowOffset) =>
              passes.purge({
                partitionId: slot.partitionId,
                epoch: slot.epoch,
                key,
                belowOffset,
                // The rewrite runs when the deadline calls for it (erasure-guard.ts): min lag is not a reason to wait then.
                ignoreMinCompactionLag: true,
                bases: objects
                  ? await objects.evidence.candidates(
                      slot.partitionId,
                      key,
                      belowOffset,
                      await log.segments(),
                    )
                  : closedBasesBelow(await log.segments(), belowOffset),
              }),
          }),
        }),
      })
    : null;
  const cleaner: CleanerView = {
    health,
    lastCleanAt: passes.lastCleanAt,
    requestClean: async (partitionId, epoch) => {
      if (scheduler) return scheduler.requestClean(partitionId, epoch);
      health.forgive(partitionId);
      await passes.clean({ partitionId, epoch, reason: "requested", dirtyRatio: 0 });
    },
  };
  // Set once the Kafka listener is up; until then (and without one) this worker coordinates no group.
  let groupCoordinator: GroupCoordinator | null = null;
  const server = createDataPlaneServer({
    host,
    cleaner,
    audit,
    metrics,
    secret: config.secret,
    workerId: id,
    logger,
    describeGroups: (tenantId) => groupCoordinator?.groupsOf(tenantId).map(describeGroup) ?? [],
    ...(fault && { fault }),
  });
  const bound = await listen(server, config.host ?? "127.0.0.1", config.port ?? 0);
  const address = config.advertisedHost ? advertise(bound, config.advertisedHost) : bound;
  const kafka = config.kafka
    ? await startKafka(config.kafka, {
        prisma,
        host,
        audit,
        logger,
        leaseTtlMs,
        id,
        clock,
        secret: config.secret,
        ...(fault && { fault }),
        registry: metrics.registry,
        fetched: metrics.fetched,
      })
    : null;
  if (kafka) registry.advertiseKafka(kafka.advertised.host, kafka.advertised.port);
  if (config.objectStore) {
    const kept = await config.objectStore.keptVersions();
    registry.describeObjectStore({
      kind: config.objectStore.kind,
      ...kept,
      tickMs,
      ...objects?.tiering.proofTimings,
    });
    if (kept.versioning !== "disabled" && kept.noncurrentExpiryDays === null) {
      logger.warn(
        { versioning: kept.versioning },
        "the bucket keeps old versions of deleted objects with no expiry: erasure deadlines cannot be promised",
      );
    }
  }
  groupCoordinator = kafka?.groups ?? null;
  // Leases a previous run under the same id still holds: nothing of them is open here.
  await leases.releaseAll();
  const nodeId = await registry.register(address);
  kafka?.setNodeId(nodeId);
  const rowExpiry = new KafkaRowExpiry({ prisma, clock, logger });
  // Assigned right below: the loop asks it from its ticks, which start after.
  let session: WorkerSession | null = null;
  const loop = new OwnershipLoop({
    leases,
    registry,
    host,
    logger,
    address,
    leaseTtlMs,
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
    trustSessions: () => (session?.heldForMs() ?? 0) >= SESSION_SETTLE_MS,
    clock,
  });
  // Held for as long as this process lives: a peer that finds it gone claims our partitions at once.
  session = new WorkerSession({
    databaseUrl: config.databaseUrl,
    nodeId,
    logger,
    onReleased: () => loop.wake(),
  });
  await session.open();
  await loop.tick();
  loop.start();
  scheduler?.start();
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
    scheduler,
    host,
    leases,
    registry,
    prisma,
    fence,
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
  leases: LeaseRepository;
  registry: WorkerRegistry;
  prisma: PrismaClient;
  fence: FenceRepository;
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
  sequence.add("close database and object store", () => closeConnections(parts));
  return sequence;
}

/** How long requests in flight on the data plane may take to finish once a stop began. */
const DATA_PLANE_DRAIN_MS = 1_000;

/** Bounded below the shutdown step limit (10 s). */
const AUDIT_FLUSH_MS = 8_000;

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

function advertise(boundAddress: string, host: string): string {
  const url = new URL(boundAddress);
  url.hostname = host;
  return url.origin;
}

interface KafkaParts {
  prisma: PrismaClient;
  host: PartitionHost;
  audit: TombstoneAudit;
  logger: Logger;
  leaseTtlMs: number;
  id: string;
  clock: Clock;
  /** The workers' shared secret: keys the stand-in SCRAM salts of unknown key ids (kafka-principals.ts). */
  secret: string;
  fault?: CrashHook;
  /** The worker's Prometheus registry: the listener's metrics join it. */
  registry: Registry;
  fetched: FetchTally;
}

async function startKafka(config: NonNullable<WorkerConfig["kafka"]>, parts: KafkaParts) {
  const appends = new AppendSignal();
  parts.host.onAppended((partitionId) => appends.notify(partitionId));
  const now = () => parts.clock.now();
  let nodeId = -1;
  let advertised = { host: config.advertisedHost ?? config.host, port: config.port };
  const catalog = new KafkaCatalog(parts.prisma, { leaseTtlMs: parts.leaseTtlMs, workerId: parts.id, now });
  // Metadata names lease owners as leaders: when this worker takes or gives up a partition, what it
  // cached is wrong at once. Kept, it sent clients back here for a partition just handed away, and
  // a non-idempotent producer's retry of the whole request wrote its other partitions twice.
  parts.host.onOpened(() => catalog.invalidate());
  parts.host.onClosed(() => catalog.invalidate());
  const self = () => ({ nodeId, workerId: parts.id, host: advertised.host, port: advertised.port });
  const groupLeases = new GroupLeaseRepository(parts.prisma, parts.id, parts.leaseTtlMs);
  // A previous run under this id held leases whose membership died with it.
  await groupLeases.releaseAll();
  const groups = new GroupCoordinator({
    leases: groupLeases,
    catalog,
    logger: parts.logger,
    leaseTtlMs: parts.leaseTtlMs,
    timings: { ...DEFAULT_GROUP_TIMINGS, ...config.groups },
    self,
    clock: parts.clock,
  });
  groups.start();
  const producerIds = new ProducerIdRepository(parts.prisma);
  const txnLeases = new TxnLeaseRepository(parts.prisma, parts.id, parts.leaseTtlMs);
  await txnLeases.releaseAll();
  const txnStates = new TxnStateRepository(parts.prisma, parts.id, now);
  // Markers to partitions other workers own go over the data plane, found through the lease table.
  const dataPlane = new DataPlaneClient({ prisma: parts.prisma, secret: parts.secret });
  const transactions = new TxnCoordinator({
    leases: txnLeases,
    states: txnStates,
    catalog,
    producerIds,
    markers: markerWriter(parts.host, dataPlane),
    logger: parts.logger,
    leaseTtlMs: parts.leaseTtlMs,
    self,
    clock: parts.clock,
    fault: parts.fault,
  });
  transactions.start();
  registerTxnMetrics(parts.registry, {
    openTransactions: () => transactions.openTransactions(),
    now: () => parts.clock.now(),
  });
  const listener = await startKafkaListener(
    {
      host: parts.host,
      audit: parts.audit,
      catalog,
      appends,
      logger: parts.logger,
      prisma: parts.prisma,
      clock: parts.clock,
      groups,
      groupLeases,
      groupOffsets: new GroupOffsetsRepository(parts.prisma, parts.id, now),
      producerIds,
      transactions,
      txnStates,
      fetched: parts.fetched,
      ...(parts.fault && { fault: parts.fault }),
      latestViews: new LatestViews(),
      sightings: new ClientSightings(
        { prisma: parts.prisma, clock: parts.clock, logger: parts.logger },
        config.clientSightingsFlushMs,
      ),
      quotas: config.quotas
        ? new KafkaQuotas(config.quotas, { prisma: parts.prisma, clock: parts.clock, logger: parts.logger })
        : null,
      inflation: new ProduceInflation(
        new InflatePool({ ...DEFAULT_INFLATE_POOL, ...config.inflatePool }),
        parts.registry,
        (tenantId) => tenantQuota({ prisma: parts.prisma, clock: parts.clock }, tenantId),
      ),
      self,
      testFaults: config.testFaults ?? null,
    },
    new KafkaPrincipals(parts.prisma, now, parts.secret),
    config,
    parts.registry,
  );
  advertised = { host: config.advertisedHost ?? listener.host, port: listener.port };
  return {
    listener,
    groups,
    transactions,
    dataPlane,
    advertised,
    setNodeId(id: number) {
      nodeId = id;
    },
  };
}
