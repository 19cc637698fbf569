import { ApiKey, type DecodedRequest, type ResponseInput } from "@lastword/kafka-protocol";
import { handleCreateAcls, handleDeleteAcls, handleDescribeAcls } from "./admin/acl-handler";
import { handleDescribeCluster, handleDescribeLogDirs } from "./admin/cluster-handler";
import { handleCreatePartitions, handleDeleteRecords } from "./admin/partition-admin-handler";
import {
  handleAlterConfigs,
  handleDescribeConfigs,
  handleIncrementalAlterConfigs,
} from "./admin/topic-configs-handler";
import { handleCreateTopics, handleDeleteTopics } from "./admin/topic-lifecycle-handler";
import type { ClientRole } from "./client-sightings";
import { handleFetch } from "./fetch-handler";
import { handleFindCoordinator } from "./groups/find-coordinator-handler";
import { handleDeleteGroups, handleDescribeGroups, handleListGroups } from "./groups/group-admin-handler";
import {
  handleHeartbeat,
  handleJoinGroup,
  handleLeaveGroup,
  handleSyncGroup,
} from "./groups/group-membership-handler";
import { handleOffsetCommit } from "./groups/offset-commit-handler";
import { handleOffsetDelete } from "./groups/offset-delete-handler";
import { handleOffsetFetch } from "./groups/offset-fetch-handler";
import type { KafkaBrokerContext, KafkaSession } from "./kafka-context";
import { handleListOffsets } from "./list-offsets-handler";
import { handleMetadata } from "./metadata-handler";
import { handleOffsetForLeaderEpoch } from "./offset-for-leader-epoch-handler";
import { DROP_CONNECTION, handleProduce } from "./produce-handler";
import { handleInitProducerId } from "./producers/init-producer-id-handler";
import { handleAddOffsetsToTxn, handleAddPartitionsToTxn, handleEndTxn } from "./transactions/txn-handlers";
import { handleTxnOffsetCommit } from "./transactions/txn-offset-commit-handler";

// Which handler serves each API once a connection is authenticated: one row per API key, so adding
// an API is one import and one row here (plus its line in advertised-apis.ts), not a case in the
// connection. ApiVersions and the SASL APIs are the connection's own (they change its state).

type RequestOf<K extends ApiKey> = Extract<DecodedRequest, { apiKey: K }>;
/** A handler's outcome: the answer, nothing to send (acks=0), or close the connection unanswered. */
export type Served<K extends ApiKey> = ResponseInput<K> | null | typeof DROP_CONNECTION;

export interface ApiRoute<K extends ApiKey> {
  serve(
    ctx: KafkaBrokerContext,
    session: KafkaSession,
    request: RequestOf<K>,
  ): Served<K> | Promise<Served<K>>;
  /** The console's client sightings: this API marks its client a producer or consumer of these topics. */
  sighting?: { role: ClientRole; topics(request: RequestOf<K>): string[] };
}

export { DROP_CONNECTION };

export const API_ROUTES: { [K in ApiKey]?: ApiRoute<K> } = {
  [ApiKey.Metadata]: { serve: (ctx, session, { body }) => handleMetadata(ctx, session, body) },
  [ApiKey.Produce]: {
    serve: (ctx, session, { apiVersion, body }) => handleProduce(ctx, session, apiVersion, body),
    sighting: { role: "producer", topics: ({ body }) => body.topicData.map((t) => t.name) },
  },
  [ApiKey.Fetch]: {
    serve: (ctx, session, { body }) => handleFetch(ctx, session, body),
    sighting: { role: "consumer", topics: ({ body }) => body.topics.map((t) => t.topic) },
  },
  [ApiKey.ListOffsets]: {
    serve: (ctx, session, { apiVersion, body }) => handleListOffsets(ctx, session, body, apiVersion),
  },
  [ApiKey.OffsetForLeaderEpoch]: {
    serve: (ctx, session, { body }) => handleOffsetForLeaderEpoch(ctx, session, body),
  },
  [ApiKey.FindCoordinator]: {
    serve: (ctx, session, { apiVersion, body }) => handleFindCoordinator(ctx, session, apiVersion, body),
  },
  [ApiKey.JoinGroup]: {
    serve: (ctx, session, { apiVersion, body }) => handleJoinGroup(ctx, session, apiVersion, body),
  },
  [ApiKey.SyncGroup]: { serve: (ctx, session, { body }) => handleSyncGroup(ctx, session, body) },
  [ApiKey.Heartbeat]: { serve: (ctx, session, { body }) => handleHeartbeat(ctx, session, body) },
  [ApiKey.LeaveGroup]: {
    serve: (ctx, session, { apiVersion, body }) => handleLeaveGroup(ctx, session, apiVersion, body),
  },
  [ApiKey.OffsetCommit]: { serve: (ctx, session, { body }) => handleOffsetCommit(ctx, session, body) },
  [ApiKey.OffsetFetch]: {
    serve: (ctx, session, { apiVersion, body }) => handleOffsetFetch(ctx, session, apiVersion, body),
  },
  [ApiKey.DescribeGroups]: { serve: (ctx, session, { body }) => handleDescribeGroups(ctx, session, body) },
  [ApiKey.ListGroups]: { serve: (ctx, session, { body }) => handleListGroups(ctx, session, body) },
  [ApiKey.DeleteGroups]: { serve: (ctx, session, { body }) => handleDeleteGroups(ctx, session, body) },
  [ApiKey.InitProducerId]: {
    serve: (ctx, session, { apiVersion, body }) => handleInitProducerId(ctx, session, apiVersion, body),
  },
  [ApiKey.AddPartitionsToTxn]: {
    serve: (ctx, session, { apiVersion, body }) => handleAddPartitionsToTxn(ctx, session, apiVersion, body),
  },
  [ApiKey.AddOffsetsToTxn]: {
    serve: (ctx, session, { apiVersion, body }) => handleAddOffsetsToTxn(ctx, session, apiVersion, body),
  },
  [ApiKey.EndTxn]: {
    serve: (ctx, session, { apiVersion, body }) => handleEndTxn(ctx, session, apiVersion, body),
  },
  [ApiKey.TxnOffsetCommit]: {
    serve: (ctx, session, { apiVersion, body }) => handleTxnOffsetCommit(ctx, session, apiVersion, body),
  },
  [ApiKey.CreateTopics]: { serve: (ctx, session, { body }) => handleCreateTopics(ctx, session, body) },
  [ApiKey.DeleteTopics]: {
    serve: (ctx, session, { apiVersion, body }) => handleDeleteTopics(ctx, session, apiVersion, body),
  },
  [ApiKey.DescribeConfigs]: { serve: (ctx, session, { body }) => handleDescribeConfigs(ctx, session, body) },
  [ApiKey.AlterConfigs]: { serve: (ctx, session, { body }) => handleAlterConfigs(ctx, session, body) },
  [ApiKey.IncrementalAlterConfigs]: {
    serve: (ctx, session, { body }) => handleIncrementalAlterConfigs(ctx, session, body),
  },
  [ApiKey.CreatePartitions]: {
    serve: (ctx, session, { body }) => handleCreatePartitions(ctx, session, body),
  },
  [ApiKey.DeleteRecords]: { serve: (ctx, session, { body }) => handleDeleteRecords(ctx, session, body) },
  [ApiKey.DescribeCluster]: {
    serve: (ctx, session, { apiVersion, body }) => handleDescribeCluster(ctx, session, apiVersion, body),
  },
  [ApiKey.DescribeLogDirs]: { serve: (ctx, session, { body }) => handleDescribeLogDirs(ctx, session, body) },
  [ApiKey.OffsetDelete]: { serve: (ctx, session, { body }) => handleOffsetDelete(ctx, session, body) },
  [ApiKey.DescribeAcls]: { serve: (ctx, session, { body }) => handleDescribeAcls(ctx, session, body) },
  [ApiKey.CreateAcls]: { serve: (ctx, session, { body }) => handleCreateAcls(ctx, session, body) },
  [ApiKey.DeleteAcls]: { serve: (ctx, session, { body }) => handleDeleteAcls(ctx, session, body) },
};

/** The route serving `request`'s API, typed for that request (undefined: not served here). */
export function routeOf(request: DecodedRequest): ApiRoute<ApiKey> | undefined {
  // The table ties each key to its own request type; a lookup by a union key cannot carry that
  // correlation in TypeScript, so the one cast is here.
  return API_ROUTES[request.apiKey] as ApiRoute<ApiKey> | undefined;
}
