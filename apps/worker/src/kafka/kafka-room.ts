import { tenantQuota } from "@lastword/api/tenant-quota";
import { DataPlaneClient } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Registry } from "prom-client";
import type { CrashHook } from "../fault-points";
import type { PartitionHost } from "../hosting/partition-host";
import type { TombstoneAudit } from "../hosting/tombstone-audit";
import { DEFAULT_INFLATE_POOL, InflatePool, type InflatePoolConfig } from "../inflation/inflate-pool";
import type { Logger } from "../logger";
import type { FetchTally } from "../metrics/fetch-tally";
import { registerTxnMetrics } from "../metrics/txn-metrics";
import { AppendSignal } from "./append-signal";
import { ClientSightings } from "./client-sightings";
import { FetchBuffers } from "./fetch-buffers";
import { DEFAULT_GROUP_TIMINGS, GroupCoordinator } from "./groups/group-coordinator";
import { GroupLeaseRepository } from "./groups/group-lease.repository";
import { GroupOffsetsRepository } from "./groups/group-offsets.repository";
import type { GroupTimings } from "./groups/group-state";
import { KafkaCatalog } from "./kafka-catalog";
import { type KafkaListener, type KafkaListenerConfig, startKafkaListener } from "./kafka-listener";
import { KafkaPrincipals } from "./kafka-principals";
import { type KafkaQuotaConfig, KafkaQuotas } from "./kafka-quotas";
import { LatestViews } from "./latest-view";
import { ProduceInflation } from "./produce-inflation";
import { ProducerIdRepository } from "./producers/producer-ids.repository";
import type { TestFaults } from "./test-faults";
import { TxnCoordinator } from "./transactions/txn-coordinator";
import { TxnLeaseRepository } from "./transactions/txn-lease.repository";
import { markerWriter } from "./transactions/txn-markers";
import { TxnStateRepository } from "./transactions/txn-state.repository";

/** The worker's Kafka listener settings (WorkerConfig.kafka). */
export type KafkaConfig = KafkaListenerConfig & {
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

/**
 * The Kafka room as the worker holds it: the listener, the group and transaction coordinators, the
 * data-plane client markers go to other workers with, where clients reach it.
 */
export interface KafkaRoom {
  listener: KafkaListener;
  groups: GroupCoordinator;
  transactions: TxnCoordinator;
  dataPlane: DataPlaneClient;
  advertised: { host: string; port: number };
  /** This broker's node id, once the worker registered (Metadata names it). */
  setNodeId(id: number): void;
}

export interface KafkaParts {
  prisma: PrismaClient;
  host: PartitionHost;
  audit: TombstoneAudit;
  logger: Logger;
  leaseTtlMs: number;
  workerId: string;
  clock: Clock;
  /** The workers' shared secret: keys the stand-in SCRAM salts of unknown key ids (kafka-principals.ts). */
  secret: string;
  fault: CrashHook | undefined;
  /** The worker's Prometheus registry: the listener's metrics join it. */
  registry: Registry;
  fetched: FetchTally;
}

/** Starts the Kafka listener and the group and transaction coordinators of this broker. */
export async function startKafka(config: KafkaConfig, parts: KafkaParts): Promise<KafkaRoom> {
  const appends = new AppendSignal();
  parts.host.onAppended((partitionId) => appends.notify(partitionId));
  const now = () => parts.clock.now();
  let nodeId = -1;
  let advertised = { host: config.advertisedHost ?? config.host, port: config.port };
  const catalog = new KafkaCatalog(parts.prisma, {
    leaseTtlMs: parts.leaseTtlMs,
    workerId: parts.workerId,
    now,
  });
  // Metadata names lease owners as leaders: when this worker takes or gives up a partition, what it
  // cached is wrong at once. Kept, it sent clients back here for a partition just handed away, and
  // a non-idempotent producer's retry of the whole request wrote its other partitions twice.
  parts.host.onOpened(() => catalog.invalidate());
  // A long poll on a partition that closes here answers at once (its leader moved or it was
  // deleted), as Kafka completes a DelayedFetch whose partition this broker no longer leads.
  parts.host.onClosed((partitionId) => {
    catalog.invalidate();
    appends.notify(partitionId);
  });
  const self = () => ({ nodeId, workerId: parts.workerId, host: advertised.host, port: advertised.port });
  const groupLeases = new GroupLeaseRepository(parts.prisma, parts.workerId, parts.leaseTtlMs);
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
  const txnLeases = new TxnLeaseRepository(parts.prisma, parts.workerId, parts.leaseTtlMs);
  await txnLeases.releaseAll();
  const txnStates = new TxnStateRepository(parts.prisma, parts.workerId, now);
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
      groupOffsets: new GroupOffsetsRepository(parts.prisma, parts.workerId, now),
      producerIds,
      transactions,
      txnStates,
      fetched: parts.fetched,
      ...(parts.fault && { fault: parts.fault }),
      latestViews: new LatestViews(),
      fetchBuffers: new FetchBuffers(),
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
