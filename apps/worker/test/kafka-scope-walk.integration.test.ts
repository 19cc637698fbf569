import type { Scope } from "@lastword/api";
import { hasScope } from "@lastword/api/key-auth";
import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { encodeRecordBatch } from "@lastword/logstore";
import { beforeAll, describe, expect, it } from "vitest";
import { ADVERTISED_APIS } from "../src/kafka/advertised-apis";
import { KAFKA_ACTS, type KafkaAct } from "../src/kafka/kafka-authorization";
import {
  alterConfigsBody,
  createPartitions,
  deleteRecordsBefore,
  incrementalAlterBody,
} from "./kafka-admin-requests";
import { endTxn, fetchBody, RawKafka } from "./kafka-client";
import { useControlPlaneWorld } from "./kafka-world";
import { eventually } from "./test-topics";

// Issue 28 acceptance: every Kafka API × scope pair against REST's answer for the same act. For
// each scope, a key holding only that scope (its creator an admin, so nothing else limits it) does
// every act of the Kafka table (kafka-authorization.ts) over the Kafka listener, and the REST route
// the table names for it; each is refused (an authorization error / 403) exactly when the other is,
// and exactly when the table's scope is missing. Acts are aimed so an allowed one changes nothing
// it matters (names that do not exist, validate-only, an unknown member).

const ZERO_UUID = "00000000-0000-0000-0000-000000000000";
const WALKED_SCOPES: Scope[] = [
  "topics:read",
  "topics:write",
  "records:read",
  "records:write",
  "groups:read",
  "groups:write",
  "keys:read",
  "keys:write",
  "erasure:read",
];
const AUTHORIZATION_FAILURES = new Set<number>([
  ErrorCode.TOPIC_AUTHORIZATION_FAILED,
  ErrorCode.GROUP_AUTHORIZATION_FAILED,
  ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
  ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
]);
// What a login alone allows (ApiVersions, SASL, DescribeCluster: brokers and the cluster id, which
// Metadata answers every key too): not acts on anything of the tenant's.
const LOGIN_ONLY = new Set<number>([
  ApiKey.ApiVersions,
  ApiKey.SaslHandshake,
  ApiKey.SaslAuthenticate,
  ApiKey.DescribeCluster,
]);

let adminKey: { id: string; secret: string };

type Outcome = "allowed" | "refused";
interface Walker {
  scope: Scope;
  index: number;
  key: { id: string; secret: string };
}

const world = useControlPlaneWorld({ name: "kafka-scope-walk" }, "scope-walk");

function rest(apiKey: string, method: string, path: string, body?: unknown) {
  return world.control.rest(apiKey, method, path, body);
}

/** The REST request doing each route's act; the group and topic names are the walker's own. */
const REST_PROBES: Record<string, (w: Walker) => [string, string, unknown?]> = {
  "GET /topics/{topic}": () => ["GET", "/topics/walk"],
  "GET /topics": () => ["GET", "/topics"],
  "POST /topics": (w) => ["POST", "/topics", { name: `walk-rest-${w.index}`, partitions: 1, configs: {} }],
  "DELETE /topics/{topic}": () => ["DELETE", "/topics/ghost"],
  "PATCH /topics/{topic}/configs": () => [
    "PATCH",
    "/topics/ghost/configs",
    { set: { "retention.ms": 1000 } },
  ],
  "POST /topics/{topic}/partitions": () => ["POST", "/topics/ghost/partitions", { count: 2 }],
  "POST /topics/{topic}/records": () => [
    "POST",
    "/topics/walk/records",
    { records: [{ key: { type: "string", data: "k" }, value: { type: "string", data: "v" } }] },
  ],
  "GET /topics/{topic}/partitions/{partition}/records": () => ["GET", "/topics/walk/partitions/0/records"],
  "GET /topics/{topic}/partitions/{partition}/offsets": () => ["GET", "/topics/walk/partitions/0/offsets"],
  "POST /topics/{topic}/partitions/{partition}/delete-records": () => [
    "POST",
    "/topics/ghost/partitions/0/delete-records",
    { beforeOffset: 0 },
  ],
  "GET /consumer-groups": () => ["GET", "/consumer-groups"],
  "GET /consumer-groups/{group}": () => ["GET", "/consumer-groups/walk-group"],
  "DELETE /consumer-groups/{group}": () => ["DELETE", "/consumer-groups/ghost-group"],
  "POST /consumer-groups/{group}/offsets": (w) => [
    "POST",
    `/consumer-groups/walk-rest-${w.index}/offsets`,
    { offsets: [{ topic: "walk", partition: 0, offset: 0 }] },
  ],
  "POST /consumer-groups/{group}/reset": () => [
    "POST",
    "/consumer-groups/ghost-group/reset",
    { topic: "walk", to: "earliest" },
  ],
  "GET /api-keys": () => ["GET", "/api-keys"],
  "PUT /api-keys/{id}/rules": () => ["PUT", "/api-keys/ghost-key/rules", { rules: [] }],
};

async function restOutcome(act: KafkaAct, w: Walker): Promise<Outcome> {
  const [method, path, body] = REST_PROBES[KAFKA_ACTS[act].rest]!(w);
  const answer = await rest(w.key.secret, method, path, body);
  expect(answer.status, `${act}: ${method} ${path} ${JSON.stringify(answer.body)}`).toBeLessThan(500);
  if (answer.status !== 403) return "allowed";
  expect(answer.body.code, `${act}: ${method} ${path}`).toBe("INSUFFICIENT_SCOPE");
  return "refused";
}

/** A transactional group act's answer with the id's refusal set aside (it is another act's scope). */
const groupsOwn = (code: number): number =>
  code === ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED ? 0 : code;

const codeOutcome = (code: number): Outcome => (AUTHORIZATION_FAILURES.has(code) ? "refused" : "allowed");

/** The act over the Kafka listener on `raw` (logged in as the walker's key): its error code. */
async function kafkaCode(raw: RawKafka, act: KafkaAct, w: Walker): Promise<number> {
  const member = { memberId: "nobody", groupInstanceId: null };
  switch (act) {
    case "Metadata":
      return (await raw.call(ApiKey.Metadata, 12, { topics: [{ name: "walk", topicId: ZERO_UUID }] }))
        .topics[0]!.errorCode;
    case "Produce":
      return (
        await raw.call(ApiKey.Produce, 7, {
          transactionalId: null,
          acks: -1,
          timeoutMs: 5_000,
          topicData: [
            {
              name: "walk",
              partitionData: [
                {
                  index: 0,
                  records: encodeRecordBatch([{ key: Buffer.from("k"), value: Buffer.from("v") }], {
                    baseOffset: 0,
                    appendTimeMs: 1,
                  }),
                },
              ],
            },
          ],
        })
      ).responses[0]!.partitionResponses[0]!.errorCode;
    case "Fetch":
      return (await raw.call(ApiKey.Fetch, 12, fetchBody("walk", 0, 0))).responses[0]!.partitions[0]!
        .errorCode;
    case "ListOffsets":
      return (
        await raw.call(ApiKey.ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [
            { name: "walk", partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] },
          ],
        })
      ).topics[0]!.partitions[0]!.errorCode;
    case "OffsetForLeaderEpoch":
      return (
        await raw.call(ApiKey.OffsetForLeaderEpoch, 4, {
          replicaId: -2,
          topics: [{ topic: "walk", partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }],
        })
      ).topics[0]!.partitions[0]!.errorCode;
    case "FindCoordinator":
      return (await raw.call(ApiKey.FindCoordinator, 3, { key: "walk-group", keyType: 0 })).errorCode;
    case "JoinGroup":
    case "JoinGroupTakeover":
      return (
        await raw.call(ApiKey.JoinGroup, 5, {
          groupId: act === "JoinGroup" ? "walk-group" : `walk-rest-${w.index}`,
          sessionTimeoutMs: 10_000,
          rebalanceTimeoutMs: 10_000,
          memberId: "",
          groupInstanceId: null,
          protocolType: "consumer",
          protocols: [{ name: "range", metadata: Buffer.alloc(0) }],
        })
      ).errorCode;
    case "SyncGroup":
      return (
        await raw.call(ApiKey.SyncGroup, 3, {
          groupId: "walk-group",
          generationId: 1,
          ...member,
          assignments: [],
        })
      ).errorCode;
    case "Heartbeat":
      return (await raw.call(ApiKey.Heartbeat, 3, { groupId: "walk-group", generationId: 1, ...member }))
        .errorCode;
    case "LeaveGroup":
      return (await raw.call(ApiKey.LeaveGroup, 3, { groupId: "walk-group", members: [member] })).errorCode;
    case "OffsetCommit":
    case "OffsetCommitOutsideGeneration": {
      const inGeneration = act === "OffsetCommit";
      const answer = await raw.call(ApiKey.OffsetCommit, 8, {
        groupId: inGeneration ? "walk-group" : `walk-admin-${w.index}`,
        generationIdOrMemberEpoch: inGeneration ? 1 : -1,
        memberId: inGeneration ? "nobody" : "",
        groupInstanceId: null,
        topics: [
          {
            name: "walk",
            partitions: [
              { partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: null },
            ],
          },
        ],
      });
      return answer.topics[0]!.partitions[0]!.errorCode;
    }
    case "OffsetFetch":
      return (
        await raw.call(ApiKey.OffsetFetch, 8, {
          groups: [{ groupId: "walk-group", topics: null }],
          requireStable: false,
        })
      ).groups[0]!.errorCode;
    case "DescribeGroups":
      return (
        await raw.call(ApiKey.DescribeGroups, 5, {
          groups: ["walk-group"],
          includeAuthorizedOperations: false,
        })
      ).groups[0]!.errorCode;
    case "ListGroups":
      return (await raw.call(ApiKey.ListGroups, 4, { statesFilter: [] })).errorCode;
    case "DeleteGroups":
      return (await raw.call(ApiKey.DeleteGroups, 2, { groupsNames: ["ghost-group"] })).results[0]!.errorCode;
    case "OffsetDelete":
      return (
        await raw.call(ApiKey.OffsetDelete, 0, {
          groupId: "ghost-group",
          topics: [{ name: "walk", partitions: [{ partitionIndex: 0 }] }],
        })
      ).errorCode;
    case "InitProducerId":
      return (
        await raw.call(ApiKey.InitProducerId, 4, {
          transactionalId: null,
          transactionTimeoutMs: 60_000,
          producerId: -1n,
          producerEpoch: -1,
        })
      ).errorCode;
    case "FindTransactionCoordinator":
      return (await raw.call(ApiKey.FindCoordinator, 3, { key: `walk-txn-${w.index}`, keyType: 1 }))
        .errorCode;
    case "InitTransactions":
      return (
        await raw.call(ApiKey.InitProducerId, 4, {
          transactionalId: `walk-txn-${w.index}`,
          transactionTimeoutMs: 60_000,
          producerId: -1n,
          producerEpoch: -1,
        })
      ).errorCode;
    case "AddPartitionsToTxn":
      return (
        await raw.call(ApiKey.AddPartitionsToTxn, 1, {
          v3AndBelowTransactionalId: `walk-txn-${w.index}`,
          v3AndBelowProducerId: 1n,
          v3AndBelowProducerEpoch: 0,
          v3AndBelowTopics: [{ name: "walk", partitions: [0] }],
        })
      ).resultsByTopicV3AndBelow[0]!.resultsByPartition[0]!.partitionErrorCode;
    case "EndTxn":
      return endTxn(raw, 1, `walk-txn-${w.index}`, { producerId: 1n, producerEpoch: 0 }, true);
    // These two also need the transactional id's right (records:write, the acts above): a key
    // refused only that is not refused this act's own scope, the group's.
    case "AddOffsetsToTxn":
      return groupsOwn(
        (
          await raw.call(ApiKey.AddOffsetsToTxn, 1, {
            transactionalId: `walk-txn-${w.index}`,
            producerId: 1n,
            producerEpoch: 0,
            groupId: "walk-group",
          })
        ).errorCode,
      );
    case "TxnOffsetCommit":
      return groupsOwn(
        (
          await raw.call(ApiKey.TxnOffsetCommit, 3, {
            transactionalId: `walk-txn-${w.index}`,
            groupId: "walk-group",
            producerId: 1n,
            producerEpoch: 0,
            generationId: -1,
            memberId: "",
            groupInstanceId: null,
            topics: [
              {
                name: "walk",
                partitions: [
                  {
                    partitionIndex: 0,
                    committedOffset: 0n,
                    committedLeaderEpoch: -1,
                    committedMetadata: null,
                  },
                ],
              },
            ],
          })
        ).topics[0]!.partitions[0]!.errorCode,
      );
    case "CreateTopics":
      return (
        await raw.call(ApiKey.CreateTopics, 7, {
          topics: [
            {
              name: `walk-kafka-${w.index}`,
              numPartitions: 1,
              replicationFactor: -1,
              assignments: [],
              configs: [],
            },
          ],
          timeoutMs: 5_000,
          validateOnly: true,
        })
      ).topics[0]!.errorCode;
    case "DeleteTopics":
      return (
        await raw.call(ApiKey.DeleteTopics, 6, {
          topics: [{ name: "ghost", topicId: ZERO_UUID }],
          timeoutMs: 5_000,
        })
      ).responses[0]!.errorCode;
    case "DescribeConfigs":
      return (
        await raw.call(ApiKey.DescribeConfigs, 4, {
          resources: [{ resourceType: 2, resourceName: "walk", configurationKeys: null }],
          includeSynonyms: false,
          includeDocumentation: false,
        })
      ).results[0]!.errorCode;
    case "AlterConfigs":
      return (await raw.call(ApiKey.AlterConfigs, 2, alterConfigsBody("ghost", [], true))).responses[0]!
        .errorCode;
    case "IncrementalAlterConfigs":
      return (await raw.call(ApiKey.IncrementalAlterConfigs, 1, incrementalAlterBody("ghost", [], true)))
        .responses[0]!.errorCode;
    case "CreatePartitions":
      return (await createPartitions(raw, "ghost", 2, { validateOnly: true })).results[0]!.errorCode;
    case "DeleteRecords":
      return (await deleteRecordsBefore(raw, "ghost", 0, 0n)).topics[0]!.partitions[0]!.errorCode;
    case "DescribeLogDirs":
      return (await raw.call(ApiKey.DescribeLogDirs, 4, { topics: null })).errorCode;
    case "DescribeAcls":
      return (
        await raw.call(ApiKey.DescribeAcls, 1, {
          resourceTypeFilter: 1,
          resourceNameFilter: null,
          patternTypeFilter: 1,
          principalFilter: null,
          hostFilter: null,
          operation: 1,
          permissionType: 1,
        })
      ).errorCode;
    case "CreateAcls":
      return (
        await raw.call(ApiKey.CreateAcls, 1, {
          creations: [
            {
              resourceType: 2,
              resourceName: "walk",
              resourcePatternType: 3,
              principal: "User:ghost-key",
              host: "*",
              operation: 3,
              permissionType: 3,
            },
          ],
        })
      ).results[0]!.errorCode;
    case "DeleteAcls":
      return (
        await raw.call(ApiKey.DeleteAcls, 1, {
          filters: [
            {
              resourceTypeFilter: 1,
              resourceNameFilter: null,
              patternTypeFilter: 1,
              principalFilter: "User:ghost-key",
              hostFilter: null,
              operation: 1,
              permissionType: 1,
            },
          ],
        })
      ).filterResults[0]!.errorCode;
  }
}

beforeAll(async () => {
  const tenant = await world.control.server.provisionTenant({
    name: "Scope walk",
    email: "owner@scope-walk.example",
    password: "scope-walk-pass-1",
  });
  const admin = await world.control.server.createApiKey({ ...tenant, name: "admin", scopes: ["admin"] });
  adminKey = { id: admin.id, secret: admin.key };
  expect(
    (await rest(admin.key, "POST", "/topics", { name: "walk", partitions: 1, configs: {} })).status,
  ).toBe(201);
  await eventually("the partition hosted", 20_000, async () =>
    world.worker.ownedPartitions().length === 1 ? true : undefined,
  );
  walkers = [];
  for (const [index, scope] of WALKED_SCOPES.entries()) {
    const issued = await world.control.server.createApiKey({
      ...tenant,
      name: `only-${scope}`,
      scopes: [scope],
    });
    const walker = { scope, index, key: { id: issued.id, secret: issued.key } };
    walkers.push(walker);
    // A group REST consumers use (offsets set over REST), one per walker: joining it over Kafka takes it over.
    const committed = await rest(admin.key, ...REST_PROBES["POST /consumer-groups/{group}/offsets"]!(walker));
    expect(committed.status).toBe(200);
  }
  // The groups' coordinator is this worker: FindCoordinator claims their leases.
  const raw = await RawKafka.login(world.worker.kafka!, adminKey);
  try {
    for (const key of ["walk-group", "ghost-group", ...walkers.map((w) => `walk-rest-${w.index}`)]) {
      await eventually(`the coordinator of ${key}`, 10_000, async () =>
        (await raw.call(ApiKey.FindCoordinator, 3, { key, keyType: 0 })).errorCode === 0 ? true : undefined,
      );
    }
  } finally {
    raw.close();
  }
});

let walkers: Walker[] = [];

describe("every Kafka API × scope against REST's answer for the same act", () => {
  it("the table covers every API the listener advertises, and every act names a REST route the walk can call", () => {
    const covered = new Set<number>(Object.values(KAFKA_ACTS).map((rule) => rule.api));
    const advertised = ADVERTISED_APIS.map((a) => a.apiKey).filter((k) => !LOGIN_ONLY.has(k));
    expect(advertised.filter((k) => !covered.has(k))).toEqual([]);
    for (const [act, rule] of Object.entries(KAFKA_ACTS)) expect(REST_PROBES[rule.rest], act).toBeDefined();
  });

  it("each key is refused on Kafka exactly when REST refuses it, exactly when the table's scope is missing", async () => {
    const mismatches: string[] = [];
    for (const w of walkers) {
      const raw = await RawKafka.login(world.worker.kafka!, w.key);
      try {
        for (const act of Object.keys(KAFKA_ACTS) as KafkaAct[]) {
          const expected: Outcome = hasScope([w.scope], KAFKA_ACTS[act].scope) ? "allowed" : "refused";
          const kafka = codeOutcome(await kafkaCode(raw, act, w));
          const viaRest = await restOutcome(act, w);
          if (kafka !== expected || viaRest !== expected) {
            mismatches.push(`${w.scope} ${act}: table ${expected}, Kafka ${kafka}, REST ${viaRest}`);
          }
        }
      } finally {
        raw.close();
      }
    }
    expect(mismatches).toEqual([]);
  });
});
