import { compileFields, inVersions, type Plan, parseVersions, type VersionRange } from "./compile";
import { KafkaProtocolError } from "./errors";
import { alterConfigs } from "./messages/alter-configs";
import { apiVersions } from "./messages/api-versions";
import { createPartitions } from "./messages/create-partitions";
import { createTopics } from "./messages/create-topics";
import { deleteGroups } from "./messages/delete-groups";
import { deleteRecords } from "./messages/delete-records";
import { deleteTopics } from "./messages/delete-topics";
import { describeCluster } from "./messages/describe-cluster";
import { describeConfigs } from "./messages/describe-configs";
import { describeGroups } from "./messages/describe-groups";
import { describeLogDirs } from "./messages/describe-log-dirs";
import { fetch } from "./messages/fetch";
import { findCoordinator } from "./messages/find-coordinator";
import { heartbeat } from "./messages/heartbeat";
import { incrementalAlterConfigs } from "./messages/incremental-alter-configs";
import { initProducerId } from "./messages/init-producer-id";
import { joinGroup } from "./messages/join-group";
import { leaveGroup } from "./messages/leave-group";
import { listGroups } from "./messages/list-groups";
import { listOffsets } from "./messages/list-offsets";
import { metadata } from "./messages/metadata";
import { offsetCommit } from "./messages/offset-commit";
import { offsetDelete } from "./messages/offset-delete";
import { offsetFetch } from "./messages/offset-fetch";
import { offsetForLeaderEpoch } from "./messages/offset-for-leader-epoch";
import { produce } from "./messages/produce";
import { saslAuthenticate } from "./messages/sasl-authenticate";
import { saslHandshake } from "./messages/sasl-handshake";
import { syncGroup } from "./messages/sync-group";
import type { ApiSchema, MessageBody, MessageInput } from "./schema-types";

/** Kafka API keys with a schema in this package (numbers from each message's JSON `apiKey`). */
export const ApiKey = {
  Produce: 0,
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetCommit: 8,
  OffsetFetch: 9,
  FindCoordinator: 10,
  JoinGroup: 11,
  Heartbeat: 12,
  LeaveGroup: 13,
  SyncGroup: 14,
  DescribeGroups: 15,
  ListGroups: 16,
  SaslHandshake: 17,
  ApiVersions: 18,
  CreateTopics: 19,
  DeleteTopics: 20,
  DeleteRecords: 21,
  InitProducerId: 22,
  OffsetForLeaderEpoch: 23,
  DescribeConfigs: 32,
  AlterConfigs: 33,
  DescribeLogDirs: 35,
  SaslAuthenticate: 36,
  CreatePartitions: 37,
  DeleteGroups: 42,
  IncrementalAlterConfigs: 44,
  OffsetDelete: 47,
  DescribeCluster: 60,
} as const;
export type ApiKey = (typeof ApiKey)[keyof typeof ApiKey];

/** The schema table: one entry per API key. */
export const apiSchemas = {
  [ApiKey.Produce]: produce,
  [ApiKey.Fetch]: fetch,
  [ApiKey.ListOffsets]: listOffsets,
  [ApiKey.Metadata]: metadata,
  [ApiKey.OffsetCommit]: offsetCommit,
  [ApiKey.OffsetFetch]: offsetFetch,
  [ApiKey.FindCoordinator]: findCoordinator,
  [ApiKey.JoinGroup]: joinGroup,
  [ApiKey.Heartbeat]: heartbeat,
  [ApiKey.LeaveGroup]: leaveGroup,
  [ApiKey.SyncGroup]: syncGroup,
  [ApiKey.DescribeGroups]: describeGroups,
  [ApiKey.ListGroups]: listGroups,
  [ApiKey.SaslHandshake]: saslHandshake,
  [ApiKey.ApiVersions]: apiVersions,
  [ApiKey.CreateTopics]: createTopics,
  [ApiKey.DeleteTopics]: deleteTopics,
  [ApiKey.DeleteRecords]: deleteRecords,
  [ApiKey.InitProducerId]: initProducerId,
  [ApiKey.OffsetForLeaderEpoch]: offsetForLeaderEpoch,
  [ApiKey.DescribeConfigs]: describeConfigs,
  [ApiKey.AlterConfigs]: alterConfigs,
  [ApiKey.DescribeLogDirs]: describeLogDirs,
  [ApiKey.SaslAuthenticate]: saslAuthenticate,
  [ApiKey.CreatePartitions]: createPartitions,
  [ApiKey.DeleteGroups]: deleteGroups,
  [ApiKey.IncrementalAlterConfigs]: incrementalAlterConfigs,
  [ApiKey.OffsetDelete]: offsetDelete,
  [ApiKey.DescribeCluster]: describeCluster,
} as const satisfies Record<ApiKey, ApiSchema>;

type Schemas = typeof apiSchemas;
export type RequestBody<K extends ApiKey> = MessageBody<Schemas[K]["request"]>;
export type ResponseBody<K extends ApiKey> = MessageBody<Schemas[K]["response"]>;
export type RequestInput<K extends ApiKey> = MessageInput<Schemas[K]["request"]>;
export type ResponseInput<K extends ApiKey> = MessageInput<Schemas[K]["response"]>;

export type Direction = "request" | "response";

interface ApiEntry {
  readonly schema: ApiSchema;
  readonly versions: VersionRange;
  readonly plans: Record<Direction, (Plan | undefined)[]>;
}

const entries = new Map<number, ApiEntry>();
for (const schema of Object.values(apiSchemas) as ApiSchema[]) {
  entries.set(schema.apiKey, {
    schema,
    versions: parseVersions(schema.validVersions),
    plans: { request: [], response: [] },
  });
}

const apiNames = new Map<number, string>(Object.entries(ApiKey).map(([name, key]) => [key, name]));

/** The API's name for logs, or `unknown(<key>)`. */
export function apiKeyName(apiKey: number): string {
  return apiNames.get(apiKey) ?? `unknown(${apiKey})`;
}

export function isKnownApiKey(apiKey: number): apiKey is ApiKey {
  return entries.has(apiKey);
}

/** Versions the codec can read and write, per key: the input to ApiVersions (the listener may narrow it). */
export const supportedVersions: readonly { apiKey: ApiKey; minVersion: number; maxVersion: number }[] = [
  ...entries.values(),
].map((entry) => ({
  apiKey: entry.schema.apiKey as ApiKey,
  minVersion: entry.versions.min,
  maxVersion: entry.versions.max,
}));

function entryFor(apiKey: number): ApiEntry {
  const entry = entries.get(apiKey);
  if (!entry) throw new KafkaProtocolError("UNKNOWN_API", `no schema for API key ${apiKey}`);
  return entry;
}

export function isVersionSupported(apiKey: number, version: number): boolean {
  const entry = entries.get(apiKey);
  return entry !== undefined && version >= entry.versions.min && version <= entry.versions.max;
}

/** Whether this API uses flexible encodings at this version (also answers for versions above the range). */
export function isFlexible(apiKey: number, version: number): boolean {
  return inVersions(entryFor(apiKey).schema.flexibleVersions, version);
}

/** The compiled layout of one message at one version, built on first use and cached. */
export function planFor(apiKey: number, version: number, direction: Direction): Plan {
  const entry = entryFor(apiKey);
  if (version < entry.versions.min || version > entry.versions.max) {
    throw new KafkaProtocolError(
      "UNSUPPORTED_VERSION",
      `${entry.schema.name} v${version} is outside ${entry.schema.validVersions}`,
    );
  }
  const cached = entry.plans[direction][version];
  if (cached) return cached;
  const plan = compileFields(entry.schema[direction], version, isFlexible(apiKey, version));
  entry.plans[direction][version] = plan;
  return plan;
}
