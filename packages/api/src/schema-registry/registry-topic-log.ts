import { createHash } from "node:crypto";
import type { DataPlane } from "@lastword/dataplane";
import type { RegistryLog, RegistryLogRecord } from "@lastword/schema-registry";
import type { LookupDeps } from "../cache/lookup-cache";
import { findRegistryPartition } from "./registry-topic";

/** Records per fetch while catching up from an offset (a cold start streams the compacted view instead). */
export const REGISTRY_FETCH_RECORDS = 1000;
/** Longest a registry write waits for another writer of the same tenant, and may itself take. */
export const REGISTRY_WRITE_TIMEOUT_MS = 30_000;

export interface RegistryLogDeps extends LookupDeps {
  dataPlane: DataPlane;
}

/**
 * A tenant's registry log: its `_schemas` topic through the data plane, like any topic. Writes of
 * one tenant are serialised across every web process by a Postgres advisory lock held for the
 * write's transaction, so the writer that decides an id or version has read every earlier write.
 */
export function topicRegistryLog(deps: RegistryLogDeps, tenantId: string): RegistryLog {
  const partition = () => findRegistryPartition(deps, tenantId);
  const lockKey = createHash("sha256").update(`schema-registry\u0000${tenantId}`).digest().readBigInt64BE(0);
  return {
    async endOffset() {
      const found = await partition();
      if (!found) return 0;
      return (await deps.dataPlane.listOffsets({ partitionId: found.partitionId })).latest;
    },
    async *read(fromOffset, toOffset) {
      const found = await partition();
      if (!found) return;
      if (fromOffset === 0) {
        // A cold start reads each key's latest record only: the compacted view of the topic.
        for await (const frame of deps.dataPlane.streamPartition({
          partitionId: found.partitionId,
          mode: "snapshot",
        })) {
          if (frame.kind === "records")
            yield { records: frame.records as readonly RegistryLogRecord[], end: 0 };
          else yield { records: [], end: frame.endOffset };
        }
        return;
      }
      let offset = fromOffset;
      while (offset < toOffset) {
        const page = await deps.dataPlane.fetch({
          partitionId: found.partitionId,
          offset,
          limit: REGISTRY_FETCH_RECORDS,
        });
        yield { records: page.records, end: page.nextOffset };
        if (page.nextOffset <= offset) break;
        offset = page.nextOffset;
      }
    },
    async append(records) {
      const found = await partition();
      if (!found) throw new Error("the schema registry's topic does not exist");
      const answer = await deps.dataPlane.produce({ partitionId: found.partitionId, records });
      return answer.offsets;
    },
    exclusive(write) {
      return oneAtATime(tenantId, () => lockedWrite(deps, lockKey, write));
    },
  };
}

/**
 * The tail of each tenant's in-process write queue. A writer waiting for the advisory lock holds a
 * pooled connection in its transaction, while the lock's holder needs one more for its own reads
 * (the partition lookup, the data plane's owner): a dozen concurrent registrations of one tenant
 * in one process could take every connection and wait on each other until the pool timed out
 * (503). Queued here first, one process has at most one such waiter per tenant.
 */
const writeQueues = new Map<string, Promise<unknown>>();

function oneAtATime<T>(tenantId: string, run: () => Promise<T>): Promise<T> {
  const previous = writeQueues.get(tenantId) ?? Promise.resolve();
  const next = previous.then(run, run);
  const tail = next.catch(() => undefined);
  writeQueues.set(tenantId, tail);
  void tail.then(() => {
    if (writeQueues.get(tenantId) === tail) writeQueues.delete(tenantId);
  });
  return next;
}

function lockedWrite<T>(deps: RegistryLogDeps, lockKey: bigint, write: () => Promise<T>): Promise<T> {
  return deps.prisma.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(${lockKey})) AS l`;
      return write();
    },
    { maxWait: REGISTRY_WRITE_TIMEOUT_MS, timeout: REGISTRY_WRITE_TIMEOUT_MS },
  );
}
