import type { DataPlane, ProduceRecord, ProducerFields } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import type { ProduceFrames } from "@lastword/frames";
import type { Redis } from "ioredis";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { toAppError } from "../errors/problem";
import { problemToSend } from "../errors/unexpected-errors";
import { bytesToEnvelope, type EnvelopeFormat, envelopeToBytes } from "../records/envelope";
import { restProducer } from "../records/idempotent-producer";
import { assertKeySize } from "../records/key-limit";
import { partitionForKey } from "../records/partitioner";
import {
  assertCanDecode,
  decodeFetched,
  type RecordSchemas,
  recordDecoder,
  type SchemaNote,
} from "../schema-registry/record-decoder";
import type { Clock } from "./api-deps";
import type { ProduceRecordsInput, ProduceResultItem } from "./produce-records.schema";
import { assertNotProtected } from "./protected-topics";
import { takeDeferredRequestCount } from "./rate-limit.service";
import type { ReadRecordsInput } from "./read-records.schema";
import { recheckTopicRouting, routedPartition, type TopicRouting, topicRouting } from "./topic.service";
import { admitProduce } from "./usage.service";
import { recordUsage } from "./usage-counter";

/** Records already in bytes, each with the partition it names (undefined: the partitioner's choice). */
export interface ProduceBatch {
  records: ProduceRecord[];
  partitions: (number | undefined)[];
}

/** A binary body kept as its checked batch frames (@lastword/frames' scanProduceFrames). */
export type FramesBatch = ProduceFrames;

export interface RecordDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  redis: Redis;
  redisPrefix: string;
  clock: Clock;
}

function recordBytes(record: ProduceRecord): number {
  let bytes = (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const h of record.headers ?? []) bytes += h.key.length + (h.value?.length ?? 0);
  return bytes;
}

/** Envelopes to bytes, once per record (refusing bad base64 here). */
function decodeRecords(input: ProduceRecordsInput): ProduceBatch {
  const records = input.records.map((r, i) => {
    const record: ProduceRecord = {
      key: envelopeToBytes(r.key, `records[${i}].key`),
      value: envelopeToBytes(r.value, `records[${i}].value`),
    };
    assertKeySize(record.key, `records[${i}].key`);
    if (r.headers && r.headers.length > 0) {
      record.headers = r.headers.map((h, j) => ({
        key: h.key,
        value: envelopeToBytes(h.value, `records[${i}].headers[${j}].value`),
      }));
    }
    if (r.timestamp !== undefined) record.timestamp = r.timestamp;
    return record;
  });
  return { records, partitions: input.records.map((r) => r.partition) };
}

function nullKeyOnCompacted(topic: string, index: number): AppError {
  return new AppError(
    "NULL_KEY_ON_COMPACTED_TOPIC",
    `Record ${index} has no key; topic "${topic}" is compacted, and compaction keeps records by key.`,
    { details: { index } },
  );
}

function namedPartitionMissing(
  topic: string,
  index: number,
  partition: number,
  partitions: number,
): AppError {
  return new AppError(
    "PARTITION_NOT_FOUND",
    `Record ${index} names partition ${partition}; topic "${topic}" has ${partitions}.`,
    { details: { index, partition } },
  );
}

/** Picks each record's partition (record indices per partition); refuses the batch before anything is written. */
function routeRecords(
  { name: topic, partitionCount: partitions, compacted }: TopicRouting,
  { records, partitions: named }: ProduceBatch,
  sticky: number,
): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  records.forEach(({ key }, index) => {
    const chosen = named[index];
    if (key === null && compacted) throw nullKeyOnCompacted(topic, index);
    if (chosen !== undefined && chosen >= partitions) {
      throw namedPartitionMissing(topic, index, chosen, partitions);
    }
    const partition = chosen ?? (key === null ? sticky : partitionForKey(key, partitions));
    const group = groups.get(partition);
    if (group) group.push(index);
    else groups.set(partition, [index]);
  });
  return groups;
}

/** The JSON body's produce: envelopes to bytes, then `produceBatch`. */
export async function produceRecords(
  deps: RecordDeps,
  identity: Identity,
  input: ProduceRecordsInput,
  idempotencyKey: string | null = null,
): Promise<{ results: ProduceResultItem[] }> {
  return produceBatch(deps, identity, input.topic, decodeRecords(input), idempotencyKey);
}

/** One data-plane produce: the records (request indices) it carries and how it is sent. */
interface Write {
  partition: number;
  indices: readonly number[] | null;
  bytes: () => number;
  send(partitionId: string): Promise<{ offsets: readonly number[] }>;
}

/** The writes of a batch of records: one per partition the records route to. */
function recordWrites(
  deps: RecordDeps,
  topic: TopicRouting,
  batch: ProduceBatch,
  producer: ProducerFields | undefined,
): Write[] {
  const { records } = batch;
  // Keyless records of one call go to one partition together (Kafka's sticky partitioner, per
  // batch); under an Idempotency-Key always the same one, so a retry meets its first batch there.
  const sticky = producer
    ? producer.producerId % topic.partitionCount
    : Math.floor(Math.random() * topic.partitionCount);
  const groups = routeRecords(topic, batch, sticky);
  return [...groups].map(([partition, indices]) => ({
    partition,
    indices,
    bytes: () => indices.reduce((sum, i) => sum + recordBytes(records[i]!), 0),
    send: (partitionId) =>
      deps.dataPlane.produce({
        partitionId,
        records: groups.size === 1 ? records : indices.map((i) => records[i]!),
        ...(producer && { producer }),
      }),
  }));
}

/**
 * The one write of a binary body whose records all go to one partition (named, or the topic's
 * only one): its frames as they are. Refuses what `routeRecords` refuses, in the same order.
 */
function framesWrite(
  deps: RecordDeps,
  topic: TopicRouting,
  batch: FramesBatch,
  producer: ProducerFields | undefined,
): Write | null {
  const partition = batch.partition ?? (topic.partitionCount === 1 ? 0 : undefined);
  if (partition === undefined) return null;
  if (topic.compacted && batch.firstNullKey === 0) throw nullKeyOnCompacted(topic.name, 0);
  if (partition >= topic.partitionCount) {
    throw namedPartitionMissing(topic.name, 0, partition, topic.partitionCount);
  }
  if (topic.compacted && batch.firstNullKey >= 0) throw nullKeyOnCompacted(topic.name, batch.firstNullKey);
  return {
    partition,
    indices: null,
    bytes: () => batch.bytes,
    send: (partitionId) =>
      deps.dataPlane.produceFrames({
        partitionId,
        frames: batch.frames,
        count: batch.count,
        ...(producer && { producer }),
      }),
  };
}

/**
 * Writes a batch: one data-plane produce (one log append, one fsync) per partition, in parallel.
 * Answers per record in request order; `partial` tells the REST layer to answer 207.
 *
 * Round trips: the topic routing and the tenant's quota come from per-process caches (500 ms), so
 * the one wait before the write is the produce admission's Redis MULTI (request and produce-bytes
 * rate windows, stored total; a cache miss adds its query alongside it). The usage counters are added while the data plane writes (counting the whole batch) and the
 * records that were not written are taken back afterwards, so every acknowledged record is counted
 * before it is acknowledged and the write path waits on no extra round trip.
 *
 * Takes records already in bytes (the JSON body's envelopes decoded above, or a binary body routed
 * by key over several partitions) or a binary body's checked frames (scanProduceFrames), sent as
 * they are when they all go to one partition; all are admitted, counted and answered the same way.
 */
export async function produceBatch(
  deps: RecordDeps,
  identity: Identity,
  topicName: string,
  batch: ProduceBatch | FramesBatch,
  idempotencyKey: string | null = null,
): Promise<{ results: ProduceResultItem[] }> {
  const tenantId = identity.tenantId;
  assertNotProtected(topicName, "produced to");
  // Each partition's batch is its own idempotent unit of this producer (idempotent-producer.ts).
  const producer = idempotencyKey === null ? undefined : restProducer(tenantId, idempotencyKey);
  const count = "frames" in batch ? batch.count : batch.records.length;
  let bytes = 0;
  if ("frames" in batch) bytes = batch.bytes;
  else for (const record of batch.records) bytes += recordBytes(record);
  // The request itself is counted in this MULTI too when the procedure opted in (trpc/access.ts).
  const admitted = admitProduce(deps, tenantId, bytes, takeDeferredRequestCount(identity));
  // Handled here too, so a refusal is not unhandled while a bad topic or batch is answered first.
  admitted.catch(() => {});
  const topic = await topicRouting(deps, tenantId, topicName);
  let writes: Write[];
  if ("frames" in batch) {
    const write = framesWrite(deps, topic, batch, producer);
    writes = write ? [write] : recordWrites(deps, topic, batch.decode(), producer);
  } else writes = recordWrites(deps, topic, batch, producer);
  await admitted;
  const counted = recordUsage(deps, tenantId, { producedRecords: count, producedBytes: bytes });
  counted.catch(() => {}); // awaited below, after the writes; not an unhandled rejection meanwhile
  const results: ProduceResultItem[] = new Array(count);
  const failures: unknown[] = [];
  let unwrittenRecords = 0;
  let unwrittenBytes = 0;
  await Promise.all(
    writes.map(async ({ partition, indices, bytes: writeBytes, send }) => {
      try {
        const partitionId = topic.partitionIds.get(partition);
        if (!partitionId)
          throw new AppError("PARTITION_UNAVAILABLE", `Partition ${partition} is being created.`);
        const { offsets } = await send(partitionId);
        if (indices === null) for (let i = 0; i < count; i++) results[i] = { partition, offset: offsets[i]! };
        else
          indices.forEach((index, i) => {
            results[index] = { partition, offset: offsets[i]! };
          });
      } catch (thrown) {
        const error = writeFailure(thrown, producer !== undefined);
        failures.push(error);
        const { code, status, detail, writeMayHaveHappened } = problemToSend(error);
        const item = {
          code,
          status,
          detail,
          ...(typeof writeMayHaveHappened === "boolean" && { writeMayHaveHappened }),
        };
        const failed = indices ?? Array.from({ length: count }, (_, i) => i);
        for (const index of failed) results[index] = { partition, error: item };
        unwrittenRecords += failed.length;
        unwrittenBytes += writeBytes();
      }
    }),
  );
  await counted;
  if (unwrittenRecords > 0) {
    await recordUsage(deps, tenantId, { producedRecords: -unwrittenRecords, producedBytes: -unwrittenBytes });
  }
  if (failures.length > 0) {
    // Nothing written: the caller gets that error itself rather than a 207 listing it N times
    // (or TOPIC_NOT_FOUND, when the cached routing outlived the topic).
    const recheck = recheckTopicRouting(deps.prisma, tenantId, topic);
    if (failures.length === writes.length) {
      await recheck;
      // The one error answered for all: if any partition's write may have happened, it says so.
      throw failures.find(mayHaveWritten) ?? failures[0];
    }
    await recheck.catch(() => {});
  }
  return { results };
}

function mayHaveWritten(error: unknown): boolean {
  return error instanceof AppError && error.details.writeMayHaveHappened === true;
}

/** A produce answer worth replaying for its Idempotency-Key: no partition's write failed. */
export function everyRecordWritten(answer: { results: readonly ProduceResultItem[] }): boolean {
  return answer.results.every((result) => result.error === undefined);
}

/**
 * A write's failure as the caller sees it: a 503 says whether the batch may be in the log anyway
 * (the request reached the worker and no answer came back) or provably is not.
 */
function writeFailure(error: unknown, idempotent: boolean): unknown {
  if (toAppError(error)?.code !== "PARTITION_UNAVAILABLE") return error;
  const mayHaveHappened = (error as { writeMayHaveHappened?: unknown }).writeMayHaveHappened === true;
  const detail = !mayHaveHappened
    ? "The partition is moving between workers or starting up; nothing was written; retry shortly."
    : idempotent
      ? "The worker failed while writing: the write may have happened; retry with the same Idempotency-Key to get its offsets."
      : "The worker failed while writing: the write may have happened, and a retry may write it twice; send an Idempotency-Key to make retries safe.";
  return new AppError("PARTITION_UNAVAILABLE", detail, {
    cause: error,
    retryAfterSeconds: 1,
    details: { writeMayHaveHappened: mayHaveHappened },
  });
}

/** A decoded key or value is JSON whatever format was asked for; the rest as asked. */
export function decodedFormat(note: SchemaNote | undefined, asked: EnvelopeFormat): EnvelopeFormat {
  return note && !("error" in note) ? "json" : asked;
}

export async function readRecords(deps: RecordDeps, identity: Identity, input: ReadRecordsInput) {
  const { routing, partitionId } = await routedPartition(
    deps,
    identity.tenantId,
    input.topic,
    input.partition,
  );
  const fetched = await deps.dataPlane
    .fetch({ partitionId, offset: input.offset, limit: input.limit })
    .catch(async (error: unknown) => {
      await recheckTopicRouting(deps.prisma, identity.tenantId, routing);
      throw error;
    });
  let page = fetched.records.slice(0, input.limit);
  // decode=true: framed keys and values come back as their decoded JSON, with the schema noted.
  const notes = new WeakMap<object, RecordSchemas>();
  if (input.decode) {
    assertCanDecode(identity);
    page = await decodeFetched(recordDecoder(deps, identity.tenantId, input.topic), page, notes);
  }
  return {
    records: page.map((r) => {
      const schemas = notes.get(r);
      return {
        offset: r.offset,
        timestamp: r.timestamp,
        key: bytesToEnvelope(r.key, decodedFormat(schemas?.key, input.keyFormat)),
        value: bytesToEnvelope(r.value, decodedFormat(schemas?.value, input.valueFormat)),
        headers: r.headers.map((h) => ({ key: h.key, value: bytesToEnvelope(h.value, "auto") })),
        ...(schemas ? { schemas } : {}),
      };
    }),
    nextOffset: fetched.nextOffset,
    logStartOffset: fetched.logStartOffset,
    logEndOffset: fetched.logEndOffset,
  };
}
