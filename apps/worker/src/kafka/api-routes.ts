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

type Handler<K extends ApiKey, Args extends unknown[]> = (
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  ...args: Args
) => Served<K> | Promise<Served<K>>;

// For a generic K, TypeScript reads a request's body as any API's; the route's request is K's, so
// its body is RequestOf<K>'s (the casts below).

/** The route of a handler that reads the request's body only. */
function byBody<K extends ApiKey>(handle: Handler<K, [body: RequestOf<K>["body"]]>): ApiRoute<K> {
  return { serve: (ctx, session, { body }) => handle(ctx, session, body as RequestOf<K>["body"]) };
}

/** The route of a handler that reads the request's version, then its body. */
function byVersion<K extends ApiKey>(
  handle: Handler<K, [version: number, body: RequestOf<K>["body"]]>,
): ApiRoute<K> {
  return {
    serve: (ctx, session, { apiVersion, body }) =>
      handle(ctx, session, apiVersion, body as RequestOf<K>["body"]),
  };
}

export const API_ROUTES: { [K in ApiKey]?: ApiRoute<K> } = {
  [ApiKey.Metadata]: byBody(handleMetadata),
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
  [ApiKey.OffsetForLeaderEpoch]: byBody(handleOffsetForLeaderEpoch),
  [ApiKey.FindCoordinator]: byVersion(handleFindCoordinator),
  [ApiKey.JoinGroup]: byVersion(handleJoinGroup),
  [ApiKey.SyncGroup]: byBody(handleSyncGroup),
  [ApiKey.Heartbeat]: byBody(handleHeartbeat),
  [ApiKey.LeaveGroup]: byVersion(handleLeaveGroup),
  [ApiKey.OffsetCommit]: byBody(handleOffsetCommit),
  [ApiKey.OffsetFetch]: byVersion(handleOffsetFetch),
  [ApiKey.DescribeGroups]: byBody(handleDescribeGroups),
  [ApiKey.ListGroups]: byBody(handleListGroups),
  [ApiKey.DeleteGroups]: byBody(handleDeleteGroups),
  [ApiKey.InitProducerId]: byVersion(handleInitProducerId),
  [ApiKey.AddPartitionsToTxn]: byVersion(handleAddPartitionsToTxn),
  [ApiKey.AddOffsetsToTxn]: byVersion(handleAddOffsetsToTxn),
  [ApiKey.EndTxn]: byVersion(handleEndTxn),
  [ApiKey.TxnOffsetCommit]: byVersion(handleTxnOffsetCommit),
  [ApiKey.CreateTopics]: byBody(handleCreateTopics),
  [ApiKey.DeleteTopics]: byVersion(handleDeleteTopics),
  [ApiKey.DescribeConfigs]: byBody(handleDescribeConfigs),
  [ApiKey.AlterConfigs]: byBody(handleAlterConfigs),
  [ApiKey.IncrementalAlterConfigs]: byBody(handleIncrementalAlterConfigs),
  [ApiKey.CreatePartitions]: byBody(handleCreatePartitions),
  [ApiKey.DeleteRecords]: byBody(handleDeleteRecords),
  [ApiKey.DescribeCluster]: byVersion(handleDescribeCluster),
  [ApiKey.DescribeLogDirs]: byBody(handleDescribeLogDirs),
  [ApiKey.OffsetDelete]: byBody(handleOffsetDelete),
  [ApiKey.DescribeAcls]: byBody(handleDescribeAcls),
  [ApiKey.CreateAcls]: byBody(handleCreateAcls),
  [ApiKey.DeleteAcls]: byBody(handleDeleteAcls),
};

/** The route serving `request`'s API, typed for that request (undefined: not served here). */
export function routeOf(request: DecodedRequest): ApiRoute<ApiKey> | undefined {
  // The table ties each key to its own request type; a lookup by a union key cannot carry that
  // correlation in TypeScript, so the one cast is here.
  return API_ROUTES[request.apiKey] as ApiRoute<ApiKey> | undefined;
}
