import {
  type ActRefusal,
  type ActResource,
  actRefusal,
  type ResourceOperation,
  type Scope,
} from "@lastword/api/key-auth";
import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import type { KafkaSession } from "./kafka-context";

/**
 * The one table of what each Kafka API needs, derived from the REST API's rules for the same act
 * (each entry names that REST route), in Kafka's model (kafka.server.KafkaApis / AclAuthorizer:
 * the operation each API checks on which resource) mapped onto our scopes:
 *
 * - Topic DESCRIBE (Metadata, ListOffsets, OffsetForLeaderEpoch, DescribeConfigs) is `topics:read`;
 *   Topic READ (Fetch) is `records:read`; Topic WRITE (Produce, and DeleteRecords, which REST files
 *   under records) is `records:write`; Topic CREATE/DELETE/ALTER/ALTER_CONFIGS (CreateTopics,
 *   DeleteTopics, CreatePartitions, AlterConfigs) is `topics:write`.
 * - Group READ (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, a member's OffsetCommit in its
 *   generation, OffsetFetch, DescribeGroups, FindCoordinator) is `groups:read`: read-only consumers
 *   keep working. What changes a group from outside its own progress — OffsetCommit without a
 *   generation (an admin reset, AlterConsumerGroupOffsets), a join that takes over a group whose
 *   offsets were set over REST, OffsetDelete, DeleteGroups — is `groups:write`, as REST's commit,
 *   reset and delete are.
 * - The ACL APIs read and change keys' rules: `keys:read` / `keys:write`, as the REST key routes.
 *
 * Each act names its resources; an API key's rules are checked on them with the operation the
 * scope implies (auth/resource-rules.ts), or the one given here for a second resource (a commit
 * needs to read the topics whose offsets it sets, as Kafka's Topic READ). Handlers ask `refusal`
 * with their act's name and the names the request carries; nothing else checks rights.
 */
export const KAFKA_ACTS = {
  Metadata: { api: ApiKey.Metadata, scope: "topics:read", on: "topic", rest: "GET /topics/{topic}" },
  Produce: { api: ApiKey.Produce, scope: "records:write", on: "topic", rest: "POST /topics/{topic}/records" },
  Fetch: {
    api: ApiKey.Fetch,
    scope: "records:read",
    on: "topic",
    rest: "GET /topics/{topic}/partitions/{partition}/records",
  },
  ListOffsets: {
    api: ApiKey.ListOffsets,
    scope: "topics:read",
    on: "topic",
    rest: "GET /topics/{topic}/partitions/{partition}/offsets",
  },
  OffsetForLeaderEpoch: {
    api: ApiKey.OffsetForLeaderEpoch,
    scope: "topics:read",
    on: "topic",
    rest: "GET /topics/{topic}/partitions/{partition}/offsets",
  },
  FindCoordinator: {
    api: ApiKey.FindCoordinator,
    scope: "groups:read",
    on: "group",
    rest: "GET /consumer-groups/{group}",
  },
  JoinGroup: {
    api: ApiKey.JoinGroup,
    scope: "groups:read",
    on: "group",
    rest: "GET /consumer-groups/{group}",
  },
  JoinGroupTakeover: {
    api: ApiKey.JoinGroup,
    scope: "groups:write",
    on: "group",
    rest: "POST /consumer-groups/{group}/offsets",
  },
  SyncGroup: {
    api: ApiKey.SyncGroup,
    scope: "groups:read",
    on: "group",
    rest: "GET /consumer-groups/{group}",
  },
  Heartbeat: {
    api: ApiKey.Heartbeat,
    scope: "groups:read",
    on: "group",
    rest: "GET /consumer-groups/{group}",
  },
  LeaveGroup: {
    api: ApiKey.LeaveGroup,
    scope: "groups:read",
    on: "group",
    rest: "GET /consumer-groups/{group}",
  },
  OffsetCommit: {
    api: ApiKey.OffsetCommit,
    scope: "groups:read",
    on: "group",
    topics: "read",
    rest: "GET /consumer-groups/{group}",
  },
  OffsetCommitOutsideGeneration: {
    api: ApiKey.OffsetCommit,
    scope: "groups:write",
    on: "group",
    topics: "read",
    rest: "POST /consumer-groups/{group}/offsets",
  },
  OffsetFetch: {
    api: ApiKey.OffsetFetch,
    scope: "groups:read",
    on: "group",
    topics: "describe",
    rest: "GET /consumer-groups/{group}",
  },
  DescribeGroups: {
    api: ApiKey.DescribeGroups,
    scope: "groups:read",
    on: "group",
    rest: "GET /consumer-groups/{group}",
  },
  ListGroups: {
    api: ApiKey.ListGroups,
    scope: "groups:read",
    on: null,
    code: ErrorCode.GROUP_AUTHORIZATION_FAILED,
    rest: "GET /consumer-groups",
  },
  DeleteGroups: {
    api: ApiKey.DeleteGroups,
    scope: "groups:write",
    on: "group",
    rest: "DELETE /consumer-groups/{group}",
  },
  OffsetDelete: {
    api: ApiKey.OffsetDelete,
    scope: "groups:write",
    on: "group",
    topics: "read",
    rest: "POST /consumer-groups/{group}/reset",
  },
  InitProducerId: {
    api: ApiKey.InitProducerId,
    scope: "records:write",
    on: null,
    rest: "POST /topics/{topic}/records",
  },
  // Transactions (issue 32). Kafka's TransactionalId WRITE (FindCoordinator key type 1,
  // InitProducerId with an id, EndTxn, a transactional Produce) is the right to produce: there
  // is no transactional-id resource in a key's rules, and the ids are the tenant's own.
  FindTransactionCoordinator: {
    api: ApiKey.FindCoordinator,
    scope: "records:write",
    on: null,
    code: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    rest: "POST /topics/{topic}/records",
  },
  InitTransactions: {
    api: ApiKey.InitProducerId,
    scope: "records:write",
    on: null,
    code: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    rest: "POST /topics/{topic}/records",
  },
  // Topic WRITE on every partition a transaction takes in.
  AddPartitionsToTxn: {
    api: ApiKey.AddPartitionsToTxn,
    scope: "records:write",
    on: "topic",
    rest: "POST /topics/{topic}/records",
  },
  EndTxn: {
    api: ApiKey.EndTxn,
    scope: "records:write",
    on: null,
    code: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    rest: "POST /topics/{topic}/records",
  },
  // A transaction's offsets set the group's position from outside its generation's own commits:
  // `groups:write`, as REST's offset commit.
  AddOffsetsToTxn: {
    api: ApiKey.AddOffsetsToTxn,
    scope: "groups:write",
    on: "group",
    rest: "POST /consumer-groups/{group}/offsets",
  },
  TxnOffsetCommit: {
    api: ApiKey.TxnOffsetCommit,
    scope: "groups:write",
    on: "group",
    topics: "read",
    rest: "POST /consumer-groups/{group}/offsets",
  },
  CreateTopics: { api: ApiKey.CreateTopics, scope: "topics:write", on: "topic", rest: "POST /topics" },
  DeleteTopics: {
    api: ApiKey.DeleteTopics,
    scope: "topics:write",
    on: "topic",
    rest: "DELETE /topics/{topic}",
  },
  DescribeConfigs: {
    api: ApiKey.DescribeConfigs,
    scope: "topics:read",
    on: "topic",
    rest: "GET /topics/{topic}",
  },
  AlterConfigs: {
    api: ApiKey.AlterConfigs,
    scope: "topics:write",
    on: "topic",
    rest: "PATCH /topics/{topic}/configs",
  },
  IncrementalAlterConfigs: {
    api: ApiKey.IncrementalAlterConfigs,
    scope: "topics:write",
    on: "topic",
    rest: "PATCH /topics/{topic}/configs",
  },
  CreatePartitions: {
    api: ApiKey.CreatePartitions,
    scope: "topics:write",
    on: "topic",
    rest: "POST /topics/{topic}/partitions",
  },
  DeleteRecords: {
    api: ApiKey.DeleteRecords,
    scope: "records:write",
    on: "topic",
    rest: "POST /topics/{topic}/partitions/{partition}/delete-records",
  },
  DescribeLogDirs: { api: ApiKey.DescribeLogDirs, scope: "topics:read", on: null, rest: "GET /topics" },
  DescribeAcls: { api: ApiKey.DescribeAcls, scope: "keys:read", on: null, rest: "GET /api-keys" },
  CreateAcls: { api: ApiKey.CreateAcls, scope: "keys:write", on: null, rest: "PUT /api-keys/{id}/rules" },
  DeleteAcls: { api: ApiKey.DeleteAcls, scope: "keys:write", on: null, rest: "PUT /api-keys/{id}/rules" },
} as const satisfies Record<
  string,
  {
    api: ApiKey;
    scope: Scope;
    on: "topic" | "group" | null;
    topics?: ResourceOperation;
    code?: number;
    rest: string;
  }
>;

export type KafkaAct = keyof typeof KAFKA_ACTS;

/** What a request names: its one resource (`name`) and, for group acts, the topics it touches. */
export interface ActNames {
  name?: string;
  topics?: readonly string[];
}

/** Why the session's key may not do `act` on `names`, or null when it may. */
export function refusal(session: KafkaSession, act: KafkaAct, names: ActNames = {}): ActRefusal | null {
  const rule: { scope: Scope; on: "topic" | "group" | null; topics?: ResourceOperation } = KAFKA_ACTS[act];
  const resources: ActResource[] = [];
  if (rule.on !== null && names.name !== undefined) resources.push({ type: rule.on, name: names.name });
  for (const topic of names.topics ?? []) {
    resources.push({ type: "topic", name: topic, ...(rule.topics ? { operation: rule.topics } : {}) });
  }
  return actRefusal(session.principal.grant, { scope: rule.scope, resources });
}

/** Whether the session's key may do `act` on `names`. */
export function allowed(session: KafkaSession, act: KafkaAct, names: ActNames = {}): boolean {
  return refusal(session, act, names) === null;
}

/** Whether the session's key may see that a topic (or group) exists: listings leave out the others. */
export function visible(session: KafkaSession, type: "topic" | "group", name: string): boolean {
  return (
    actRefusal(session.principal.grant, {
      scope: type === "topic" ? "topics:read" : "groups:read",
      resources: [{ type, name, operation: "describe" }],
    }) === null
  );
}

/** The Kafka error code of a refusal of `act`: the resource's authorization failure. */
export function refusedCode(act: KafkaAct): number {
  const rule: { on: "topic" | "group" | null; code?: number } = KAFKA_ACTS[act];
  if (rule.code !== undefined) return rule.code;
  const on = rule.on;
  if (on === "topic") return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  if (on === "group") return ErrorCode.GROUP_AUTHORIZATION_FAILED;
  return ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
}
