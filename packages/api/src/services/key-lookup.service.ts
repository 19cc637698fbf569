import type { DataPlane } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import { bytesToEnvelope, type EnvelopeFormat } from "../records/envelope";
import { assertKeySize } from "../records/key-limit";
import { partitionForKey } from "../records/partitioner";
import { topicRouting } from "./topic.service";

export interface KeyLookupDeps {
  prisma: PrismaClient;
  dataPlane: DataPlane;
  clock: Clock;
}

export interface KeyLookupInput {
  topic: string;
  key: string;
  keyType: "string" | "base64";
  valueFormat: EnvelopeFormat;
}

/**
 * The partition a key lives in (Kafka's partitioner) and that partition's row id, through the cached
 * routing produce uses (so lookups keep working while Postgres is unreachable).
 */
async function keyPartition(deps: KeyLookupDeps, identity: Identity, input: KeyLookupInput) {
  const routing = await topicRouting(deps, identity.tenantId, input.topic);
  const key = Buffer.from(input.key, input.keyType === "base64" ? "base64" : "utf8");
  assertKeySize(key, "The key");
  const index = partitionForKey(key, routing.partitionCount);
  const partitionId = routing.partitionIds.get(index);
  if (partitionId === undefined)
    throw new AppError("PARTITION_UNAVAILABLE", `Partition ${index} of "${input.topic}" is not ready.`);
  return { key, partition: index, partitionId };
}

function keyNotFound(input: KeyLookupInput): AppError {
  return new AppError("KEY_NOT_FOUND", `Topic "${input.topic}" holds no live value for key "${input.key}".`);
}

/** Latest live value by key, from the owner's key index (no scan); 404 if absent or tombstoned. */
export async function getKey(deps: KeyLookupDeps, identity: Identity, input: KeyLookupInput) {
  const { key, partition, partitionId } = await keyPartition(deps, identity, input);
  const { record } = await deps.dataPlane.lookupKey({ partitionId, key });
  if (!record) throw keyNotFound(input);
  return {
    partition,
    offset: record.offset,
    timestamp: record.timestamp,
    value: bytesToEnvelope(Buffer.from(record.value, "base64"), input.valueFormat),
    headers: record.headers.map((h) => ({
      key: h.key,
      value: bytesToEnvelope(h.value === null ? null : Buffer.from(h.value, "base64"), "auto"),
    })),
  };
}

/** Every retained version of a key (tombstones too), with the segment file each lives in. */
export async function getKeyVersions(deps: KeyLookupDeps, identity: Identity, input: KeyLookupInput) {
  const { key, partition, partitionId } = await keyPartition(deps, identity, input);
  const found = await deps.dataPlane.keyVersions({ partitionId, key });
  return {
    partition,
    logStartOffset: found.logStartOffset,
    logEndOffset: found.logEndOffset,
    versions: found.versions.map((v) => ({
      offset: v.offset,
      timestamp: v.timestamp,
      value: bytesToEnvelope(v.value === null ? null : Buffer.from(v.value, "base64"), input.valueFormat),
      tombstone: v.value === null,
      segment: { baseOffset: v.segmentBaseOffset },
    })),
  };
}
