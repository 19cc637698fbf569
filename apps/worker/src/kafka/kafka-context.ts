import type { TombstoneAudit } from "../erasure/tombstone-audit";
import type { PartitionHost } from "../hosting/partition-host";
import type { Logger } from "../logger";
import type { AppendSignal } from "./append-signal";
import type { KafkaBroker, KafkaCatalog } from "./kafka-catalog";
import type { KafkaPrincipal } from "./kafka-principals";

/** What every request handler of this worker's listener shares. */
export interface KafkaBrokerContext {
  host: PartitionHost;
  audit: TombstoneAudit;
  catalog: KafkaCatalog;
  appends: AppendSignal;
  logger: Logger;
  /** This worker as a broker (its node id is known once it registered). */
  self(): KafkaBroker;
}

/** One authenticated connection's identity, as handlers see it. */
export interface KafkaSession {
  principal: KafkaPrincipal;
  clientId: string | null;
  /** Aborted when the connection closes (long polls stop waiting). */
  closed: AbortSignal;
}
