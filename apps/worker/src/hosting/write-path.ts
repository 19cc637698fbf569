import type { DeleteRecordsResponse, ProduceResponse, ProducerFields } from "@lastword/dataplane";
import type { TxnMarkerAppend, TxnMarkerResult } from "@lastword/logstore";
import type { CrashHook } from "../fault-points";
import {
  appendedCount,
  forEachAppended,
  isEncodedBatch,
  type ProducePayload,
  withPlainCopy,
} from "./appended-records";
import type { HostedLog } from "./hosted-log";
import type { PartitionHost } from "./partition-host";
import type { TombstoneAudit } from "./tombstone-audit";

// The one write path below both entry points: the data plane's HTTP produce (dataplane/) and Kafka
// Produce and DeleteRecords (kafka/) call these, so neither borrows the other's handler.

/** How a produce appends, beyond its records. */
export interface ProduceOptions {
  /** Producer fields of records (a REST Idempotency-Key): the append is idempotent. */
  producer?: ProducerFields | undefined;
  /** The codec the producer's batch came in (Kafka Produce), for the topic's compression.type. */
  compression?: number | undefined;
  /** The records are a transactional producer's batch (Kafka Produce, re-encoded): they join its transaction. */
  transactional?: boolean | undefined;
  /** The crash point (fault-points.ts): `after-append` once a new batch is durable, before it is answered. */
  fault?: CrashHook | undefined;
}

/**
 * One batch → one append (one fsync in the log store) → consecutive offsets, answered as the base
 * offset and the count (protocol.ts, produceResponseSchema). The body is records (the REST path,
 * or a Kafka batch that had to be decoded) or one Kafka client's batch appended as sent; both take
 * the log store's one validation and write path. With an object store the answer also waits for
 * the commit window to put the batch in object storage under a committed manifest row
 * (`host.durable`). The tombstones of an acknowledged produce on a
 * compacted topic are queued as one audit event (never waited for). With `producer` (records) or
 * a producer id in the batch's header the append is idempotent (the log store's producer state):
 * a resend of a batch already in the log is answered with its offsets and `duplicate`, and writes
 * nothing. The answer also carries the log start offset as of the append (Kafka's Produce answer
 * reports it), read under the same hold of the log.
 */
export async function produce(
  host: PartitionHost,
  audit: TombstoneAudit,
  partitionId: string,
  body: Promise<ProducePayload>,
  options: ProduceOptions = {},
): Promise<ProduceAnswer> {
  const { producer, compression, transactional, fault } = options;
  const answer = await host.write(partitionId, body, async (log, sent): Promise<ProduceAnswer> => {
    // A compressed batch is inflated once for the log, the key index and the tombstone audit.
    const payload = isEncodedBatch(sent) ? withPlainCopy(sent) : sent;
    // A roll closes a segment, which may make a compacted partition cleanable right now.
    const compacted = log.config.cleanupPolicy.compact;
    const segmentsBefore = compacted ? (await log.segments()).length : 0;
    const count = appendedCount(payload);
    const { baseOffset, lastOffset, duplicate } = isEncodedBatch(payload)
      ? await log.appendBatch(payload.batch, payload.inflated)
      : await log.append(payload, {
          ...(producer && { producer }),
          ...(compression !== undefined && { compression }),
          ...(transactional && { transactional }),
        });
    if (compacted && (await log.segments()).length !== segmentsBefore) host.notifyRolled(partitionId);
    // The answer promises consecutive offsets; an append that broke that must not be acknowledged.
    if (lastOffset !== baseOffset + count - 1) {
      throw new Error(`append of ${count} records returned offsets ${baseOffset}..${lastOffset}`);
    }
    // A resend of a batch still waiting for its commit is answered once that commit is in, too.
    // Refused meanwhile, it says whether the write may have happened (commit-window.ts).
    await host.durable(partitionId, lastOffset + 1, log.config.durability);
    const { logStartOffset } = log;
    if (duplicate) return { baseOffset, count, duplicate: true, logStartOffset };
    if (compacted) auditTombstones(host, audit, partitionId, log, payload, baseOffset);
    host.notifyAppended(partitionId);
    return { baseOffset, count, logStartOffset };
  });
  // The batch is durable and not yet answered: dying here is the crash a client must retry through.
  if (!answer.duplicate) fault?.("after-append");
  return answer;
}

/** A produce's answer in the worker: the data plane's, and the log start offset as of the append. */
export type ProduceAnswer = ProduceResponse & { logStartOffset: number };

function auditTombstones(
  host: PartitionHost,
  audit: TombstoneAudit,
  partitionId: string,
  log: HostedLog,
  payload: ProducePayload,
  baseOffset: number,
): void {
  const ackedAt = host.clock.now();
  const tombstones: { key: Buffer; offset: number; timestamp: number }[] = [];
  forEachAppended(payload, baseOffset, ({ key, tombstone, offset, timestamp }) => {
    // The audit outlives the request, so a key that is a view of the client's batch is copied.
    if (tombstone && key !== null)
      tombstones.push({ key: Buffer.from(key), offset, timestamp: timestamp ?? ackedAt });
  });
  const slot = host.slot(partitionId);
  if (tombstones.length && slot) audit.written(slot.audited, tombstones, log.config.deleteRetentionMs);
}

/**
 * Moves the log start offset (fenced like a produce), then runs retention so the segments wholly
 * below it are deleted now rather than at the next scheduled pass.
 */
export function deleteRecords(
  host: PartitionHost,
  partitionId: string,
  beforeOffset: Promise<number>,
): Promise<DeleteRecordsResponse> {
  return host.write(partitionId, beforeOffset, async (log, offset) => {
    const answer = await log.deleteRecordsBefore(offset);
    await log.applyRetention();
    return answer;
  });
}

/**
 * Writes a transaction's COMMIT/ABORT marker to a partition this worker owns (the transaction
 * coordinator's call, locally or through the data plane), fenced like a produce. Resolves once the
 * marker is as durable as the topic asks (the commit window, with an object store), so an
 * acknowledged marker survives a takeover; a marker lost before that is written again by the
 * coordinator's retry (harmless: `closedTransaction` is then false). The log store refuses a
 * fenced producer epoch (INVALID_PRODUCER_EPOCH) or coordinator epoch
 * (TRANSACTION_COORDINATOR_FENCED) with nothing written. Long polls wake: the LSO may have moved.
 */
export function writeTxnMarker(
  host: PartitionHost,
  partitionId: string,
  marker: TxnMarkerAppend,
): Promise<TxnMarkerResult> {
  return host.write(partitionId, Promise.resolve(marker), async (log) => {
    const compacted = log.config.cleanupPolicy.compact;
    const segmentsBefore = compacted ? (await log.segments()).length : 0;
    const result = await log.appendTxnMarker(marker);
    if (compacted && (await log.segments()).length !== segmentsBefore) host.notifyRolled(partitionId);
    await host.durable(partitionId, result.offset + 1, log.config.durability);
    host.notifyAppended(partitionId);
    return result;
  });
}
