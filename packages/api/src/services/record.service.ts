import type { PrismaClient } from "@lastword/db";
import type { Redis } from "ioredis";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { toProblem } from "../errors/problem";
import type { ProduceRecordsInput, ProduceResultItem } from "../procedures/records/produce-records.schema";
import type { ReadRecordsInput } from "../procedures/records/read-records.schema";
import type { DataPlane, DataPlaneProduceRecord } from "../records/data-plane";
import { bytesToEnvelope, envelopeToBytes } from "../records/envelope";
import { partitionForKey } from "../records/partitioner";
import type { Clock } from "../trpc/context";
import { enforceProduceBytes } from "./rate-limit.service";
import { findPartition, findTopic } from "./topic.service";
import { isCompacted, storedConfigs } from "./topic-config";
import { assertStorageQuota, recordUsage } from "./usage.service";

export interface RecordDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  redis: Redis;
  redisPrefix: string;
  clock: Clock;
}

interface Routed {
  index: number;
  partition: number;
  record: DataPlaneProduceRecord;
}

function recordBytes(record: DataPlaneProduceRecord): number {
  const headers = (record.headers ?? []).reduce((n, h) => n + h.key.length + (h.value?.length ?? 0), 0);
  return (record.key?.length ?? 0) + (record.value?.length ?? 0) + headers;
}

/** Decodes envelopes and picks each record's partition; refuses the batch before anything is written. */
function routeRecords(input: ProduceRecordsInput, partitions: number, compacted: boolean): Routed[] {
  // Keyless records of one call go to one partition together (Kafka's sticky partitioner, per batch).
  const sticky = Math.floor(Math.random() * partitions);
  return input.records.map((r, index) => {
    const key = envelopeToBytes(r.key);
    if (key === null && compacted) {
      throw new AppError(
        "NULL_KEY_ON_COMPACTED_TOPIC",
        `Record ${index} has no key; topic "${input.topic}" is compacted, and compaction keeps records by key.`,
        { details: { index } },
      );
    }
    if (r.partition !== undefined && r.partition >= partitions) {
      throw new AppError(
        "PARTITION_NOT_FOUND",
        `Record ${index} names partition ${r.partition}; topic "${input.topic}" has ${partitions}.`,
        { details: { index, partition: r.partition } },
      );
    }
    const partition = r.partition ?? (key === null ? sticky : partitionForKey(key, partitions));
    const record: DataPlaneProduceRecord = {
      key,
      value: envelopeToBytes(r.value),
      headers: (r.headers ?? []).map((h) => ({ key: h.key, value: envelopeToBytes(h.value) })),
    };
    if (r.timestamp !== undefined) record.timestamp = r.timestamp;
    return { index, partition, record };
  });
}

function groupByPartition(routed: Routed[]): Map<number, Routed[]> {
  const groups = new Map<number, Routed[]>();
  for (const item of routed) groups.set(item.partition, [...(groups.get(item.partition) ?? []), item]);
  return groups;
}

async function partitionIds(prisma: PrismaClient, topicId: string): Promise<Map<number, string>> {
  const rows = await prisma.partition.findMany({ where: { topicId }, select: { id: true, index: true } });
  return new Map(rows.map((r) => [r.index, r.id]));
}

/**
 * Writes a batch: one data-plane produce (one log append, one fsync) per partition, in parallel.
 * Answers per record in request order; `partial` tells the REST layer to answer 207.
 */
export async function produceRecords(
  deps: RecordDeps,
  identity: Identity,
  input: ProduceRecordsInput,
): Promise<{ results: ProduceResultItem[] }> {
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const routed = routeRecords(input, topic.partitionCount, isCompacted(storedConfigs(topic.configs)));
  await assertStorageQuota(deps, identity.tenantId);
  await enforceProduceBytes(
    deps,
    identity.tenantId,
    routed.reduce((n, r) => n + recordBytes(r.record), 0),
  );
  const ids = await partitionIds(deps.prisma, topic.id);
  const results: ProduceResultItem[] = new Array(routed.length);
  const failures: unknown[] = [];
  await Promise.all(
    [...groupByPartition(routed)].map(async ([partition, items]) => {
      try {
        const partitionId = ids.get(partition);
        if (!partitionId)
          throw new AppError("PARTITION_UNAVAILABLE", `Partition ${partition} is being created.`);
        const { offsets } = await deps.dataPlane.produce({
          partitionId,
          records: items.map((i) => i.record),
        });
        items.forEach((item, i) => {
          results[item.index] = { partition, offset: offsets[i]! };
        });
      } catch (error) {
        failures.push(error);
        const { code, status, detail } = toProblem(error);
        for (const item of items) results[item.index] = { partition, error: { code, status, detail } };
      }
    }),
  );
  const written = routed.filter((r) => results[r.index]?.offset !== undefined);
  await recordUsage(deps, identity.tenantId, {
    producedRecords: written.length,
    producedBytes: written.reduce((n, r) => n + recordBytes(r.record), 0),
  });
  // Nothing written: the caller gets that error itself rather than a 207 listing it N times.
  if (failures.length > 0 && results.every((r) => r.error)) throw failures[0];
  return { results };
}

export async function readRecords(deps: RecordDeps, identity: Identity, input: ReadRecordsInput) {
  const { partition } = await findPartition(deps.prisma, identity.tenantId, input.topic, input.partition);
  const fetched = await deps.dataPlane.fetch({
    partitionId: partition.id,
    offset: input.offset,
    limit: input.limit,
  });
  return {
    records: fetched.records.slice(0, input.limit).map((r) => ({
      offset: r.offset,
      timestamp: r.timestamp,
      key: bytesToEnvelope(r.key, input.keyFormat),
      value: bytesToEnvelope(r.value, input.valueFormat),
      headers: r.headers.map((h) => ({ key: h.key, value: bytesToEnvelope(h.value, "auto") })),
    })),
    nextOffset: fetched.nextOffset,
    logStartOffset: fetched.logStartOffset,
    logEndOffset: fetched.logEndOffset,
  };
}
