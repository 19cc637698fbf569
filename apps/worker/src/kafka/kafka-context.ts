import type { PrismaClient } from "@lastword/db";
import type { ApiKey, RequestBody, ResponseInput } from "@lastword/kafka-protocol";
import type { Clock } from "@lastword/logstore";
import type { CrashHook, KafkaFaultHooks } from "../fault-points";
import type { PartitionHost } from "../hosting/partition-host";
import type { TombstoneAudit } from "../hosting/tombstone-audit";
import type { Logger } from "../logger";
import type { FetchTally } from "../metrics/fetch-tally";
import type { AppendSignal } from "./append-signal";
import type { ClientSightings } from "./client-sightings";
import type { FetchBuffers } from "./fetch-buffers";
import type { GroupCoordinator } from "./groups/group-coordinator";
import type { GroupLeaseRepository } from "./groups/group-lease.repository";
import type { GroupOffsetsRepository } from "./groups/group-offsets.repository";
import type { KafkaBroker, KafkaCatalog } from "./kafka-catalog";
import type { KafkaPrincipal } from "./kafka-principals";
import type { KafkaQuotas } from "./kafka-quotas";
import type { LatestFreeze, LatestViews } from "./latest-view";
import type { ProduceInflation } from "./produce-inflation";
import type { ProducerIdRepository } from "./producers/producer-ids.repository";
import type { RateQuotaName } from "./tenant-rates";
import type { TxnCoordinator } from "./transactions/txn-coordinator";
import type { TxnStateRepository } from "./transactions/txn-state.repository";

/** What every request handler of this worker's listener shares. */
export interface KafkaBrokerContext {
  host: PartitionHost;
  audit: TombstoneAudit;
  catalog: KafkaCatalog;
  appends: AppendSignal;
  logger: Logger;
  /** The control plane's database and clock, for the admin APIs (the REST API's own services). */
  prisma: PrismaClient;
  clock: Clock;
  /** The groups this worker coordinates, their leases, and the shared committed-offset rows. */
  groups: GroupCoordinator;
  groupLeases: GroupLeaseRepository;
  groupOffsets: GroupOffsetsRepository;
  /** The producer ids InitProducerId issues (shared by every worker). */
  producerIds: ProducerIdRepository;
  /** The transactional ids this worker coordinates, and every id's transaction state (shared rows). */
  transactions: TxnCoordinator;
  txnStates: TxnStateRepository;
  /** Test-only crash points (LASTWORD_FAULT_POINT, fault-points.ts): the write path's `after-append`. */
  fault?: CrashHook;
  /** The tenants' produce quotas (null: nothing is throttled). */
  quotas: KafkaQuotas | null;
  /** Produce's inflation of compressed batches, in the worker's pool, within the tenants' limits. */
  inflation: ProduceInflation;
  /** The frozen key indexes the `<topic>.latest` views are served from. */
  latestViews: LatestViews;
  /** Buffers Fetch answers are read into, reused once each answer is written. */
  fetchBuffers: FetchBuffers;
  /** Records served per partition, for the console's throughput chart (the worker's metrics). */
  fetched: FetchTally;
  /** Which clients produced to and consumed from which topics, for the console. */
  sightings: ClientSightings;
  /** This worker as a broker (its node id is known once it registered). */
  self(): KafkaBroker;
  /** Injected faults (WORKER_KAFKA_TEST_FAULTS), null unless a test asked for them. */
  testFaults: KafkaFaultHooks | null;
}

/**
 * What serves one API whose answer depends on the request's body alone (not its version): the
 * body, within the session's tenant, to the response the connection sends.
 */
export type KafkaHandler<K extends ApiKey> = (
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: RequestBody<K>,
) => Promise<ResponseInput<K>>;

/** One authenticated connection's identity, as handlers see it. */
export interface KafkaSession {
  principal: KafkaPrincipal;
  clientId: string | null;
  /** The client's address as seen here (DescribeGroups shows it per member). */
  clientHost: string;
  /** Aborted when the connection closes (long polls stop waiting). */
  closed: AbortSignal;
  /** The view freezes this connection reads through, by partition id (see LatestViews). */
  latestPins: Map<string, LatestFreeze>;
  /**
   * Mutes the connection for `ms` once the current response is sent (Kafka's KIP-219 throttle:
   * answer at once, then read nothing more from that client until the quota allows it), for the
   * quota named (the tenant-wide produce quota, counted in Redis).
   */
  throttle(ms: number, quota: "produceBytesPerSecond"): void;
  /**
   * Charges the request with what it used of a quota this worker meters (tenant-rates.ts) beyond
   * its loop time, which the connection measures itself: inflate-pool time, bytes fetched. The
   * connection answers the throttle when the request is done.
   */
  charge(quota: RateQuotaName, amount: number): void;
  /** Runs `done` once the answer is written (or there will be none): what it lent is free again. */
  afterAnswer(done: () => void): void;
}
