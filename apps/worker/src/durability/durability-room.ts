import type { Clock } from "@lastword/logstore";
import type { ObjectStore } from "@lastword/object-store";
import type { CrashHook } from "../fault-points";
import type { PartitionHost } from "../hosting/partition-host";
import type { Logger } from "../logger";
import type { WorkerRegistry } from "../ownership/worker-registry";
import { ObjectStorage, type ObjectStorageTimings } from "./object-storage";

export interface DurabilityConfig {
  databaseUrl: string;
  objectStore?: ObjectStore;
  objectTimings?: ObjectStorageTimings;
  erasureKeyFilters?: boolean;
}

/** The object store as the partitions' durable home, or null without one (local fsync only). */
export function createDurability(
  config: DurabilityConfig,
  deps: {
    workerId: string;
    leaseTtlMs: number;
    logger: Logger;
    clock: Clock;
    host: () => PartitionHost;
    fault: CrashHook | undefined;
  },
): ObjectStorage | null {
  if (!config.objectStore) return null;
  return new ObjectStorage({
    store: config.objectStore,
    databaseUrl: config.databaseUrl,
    workerId: deps.workerId,
    liveWithinMs: 2 * deps.leaseTtlMs,
    keyFilters: config.erasureKeyFilters !== false,
    logger: deps.logger,
    clock: deps.clock,
    host: deps.host,
    ...config.objectTimings,
    ...(deps.fault && { fault: deps.fault }),
  });
}

/**
 * Writes what the bucket keeps into this worker's row (the console shows it), and warns when old
 * versions of deleted objects never expire: an erasure deadline cannot be promised then.
 */
export async function describeBucket(
  store: ObjectStore,
  objects: ObjectStorage,
  registry: WorkerRegistry,
  tickMs: number,
  logger: Logger,
): Promise<void> {
  const kept = await store.keptVersions();
  registry.describeObjectStore({ kind: store.kind, ...kept, tickMs, ...objects.tiering.proofTimings });
  if (kept.versioning !== "disabled" && kept.noncurrentExpiryDays === null) {
    logger.warn(
      { versioning: kept.versioning },
      "the bucket keeps old versions of deleted objects with no expiry: erasure deadlines cannot be promised",
    );
  }
}
