import { randomUUID } from "node:crypto";
import { DEFAULT_QUOTA } from "@lastword/api/tenant-quota";
import { ApiKey, ConfigResourceType, ErrorCode } from "@lastword/kafka-protocol";
import { encodeRecordBatch } from "@lastword/logstore";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alterConfigsBody,
  createPartitions,
  deleteRecordsBefore,
  incrementalAlterBody,
} from "./kafka-admin-requests";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic, fetchBody, RawKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// The REST API's cross-tenant walk over the Kafka port: with tenant B's key, every advertised API
// that names a topic, a topic id or a group is sent once naming tenant A's and once naming one
// that exists nowhere. The two answers must be the same once the name is blanked out (error codes
// and messages alike), and afterwards A's records, configs, partitions, offsets and group are as
// they were.

const ORG_A = "org_iso_a";
const ORG_B = "org_iso_b";
/** A's topic and group; B never created anything by these names. */
const TOPIC = "ledger";
const GROUP = "ledger-readers";
/** Names that exist in no tenant. */
const GHOST_TOPIC = "phantom";
const GHOST_GROUP = "phantom-readers";
const ALL_SCOPES = [...CLIENT_SCOPES, "topics:write"] as const;

let keyB: { id: string; secret: string };
let topicIdA: string;
let a: RawKafka;
let b: RawKafka;

// The world's key is A's.
const world = useKafkaWorld({ name: "kafka-isolation", secret: "kafka-isolation-secret" }, ORG_A, {
  topics: { [TOPIC]: [2, { "retention.ms": "604800000" }] },
  partitions: 3,
  scopes: ALL_SCOPES,
  setup: async (h) => {
    await createNamedTopic(h.db.prisma, ORG_B, "b-own", 1);
    // Request-time quotas out of reach: on a loaded machine one request of a pair took over the
    // default 250 ms per second and its answer alone carried a throttle (B: 149 ms against 0; A's
    // state before and after: 279 against 0), while the answers compared must differ only by name.
    for (const organizationId of [ORG_A, ORG_B])
      await h.db.prisma.quota.create({
        data: { organizationId, ...DEFAULT_QUOTA, requestTimeMsPerSecond: 60_000 },
      });
    topicIdA = (await h.db.prisma.topic.findFirstOrThrow({ where: { organizationId: ORG_A, name: TOPIC } }))
      .kafkaTopicId;
    keyB = await createKafkaKey(h.db.prisma, ORG_B, ALL_SCOPES);
  },
});

beforeAll(async () => {
  const producer = new Kafka({
    brokers: [world.bootstrap],
    sasl: { mechanism: "plain", username: world.key.id, password: world.key.secret },
    logLevel: logLevel.NOTHING,
  }).producer();
  await producer.connect();
  for (const partition of [0, 1]) {
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: 5 }, (_, i) => ({
        partition,
        key: `k${i}`,
        value: `p${partition}-${i}`,
      })),
    });
  }
  await producer.disconnect();
  a = await RawKafka.login(world.worker.kafka!, world.key);
  b = await RawKafka.login(world.worker.kafka!, keyB);
  // A's group has committed offsets (set from outside the group, as an admin tool does).
  await a.call(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: [GROUP] });
  const committed = await a.call(ApiKey.OffsetCommit, 8, {
    groupId: GROUP,
    generationIdOrMemberEpoch: -1,
    memberId: "",
    topics: [
      {
        name: TOPIC,
        partitions: [
          { partitionIndex: 0, committedOffset: 3n, committedMetadata: "a's" },
          { partitionIndex: 1, committedOffset: 4n, committedMetadata: null },
        ],
      },
    ],
  });
  expect(committed.topics[0]!.partitions.map((p) => p.errorCode)).toEqual([0, 0]);
});

afterAll(() => {
  a?.close();
  b?.close();
});

/** JSON with bigints as strings and every name or id of the pair blanked, so two answers compare. */
function blanked(body: unknown, ...names: string[]): string {
  let text = JSON.stringify(body, (_key, value) => (typeof value === "bigint" ? `${value}n` : value));
  for (const name of names) text = text.replaceAll(name, "<name>");
  return text;
}

/**
 * Sends `request(name)` as B for A's name and for a name that exists nowhere; the answers must be
 * the same but for the name. Returns the answer for A's name, for checks of its codes.
 */
async function sameAsMissing<T>(
  real: string,
  ghost: string,
  request: (name: string) => Promise<T>,
): Promise<T> {
  const forReal = await request(real);
  const forGhost = await request(ghost);
  expect(blanked(forReal, real)).toBe(blanked(forGhost, ghost));
  return forReal;
}

const sameAsMissingTopic = <T>(request: (name: string) => Promise<T>) =>
  sameAsMissing(TOPIC, GHOST_TOPIC, request);
const sameAsMissingGroup = <T>(request: (name: string) => Promise<T>) =>
  sameAsMissing(GROUP, GHOST_GROUP, request);

/** Everything of A's the walk could touch, read as A. */
async function stateOfA() {
  const records = [];
  // One request at a time: the raw connection reads answers in order.
  for (const partition of [0, 1]) {
    const fetched = await a.call(ApiKey.Fetch, 12, fetchBody(TOPIC, partition, 0));
    const p = fetched.responses[0]!.partitions[0]!;
    records.push({
      errorCode: p.errorCode,
      logStartOffset: p.logStartOffset,
      hw: p.highWatermark,
      bytes: p.records,
    });
  }
  const configs = await a.call(ApiKey.DescribeConfigs, 4, {
    resources: [{ resourceType: ConfigResourceType.TOPIC, resourceName: TOPIC, configurationKeys: null }],
  });
  const offsets = await a.call(ApiKey.OffsetFetch, 8, { groups: [{ groupId: GROUP, topics: null }] });
  const group = await a.call(ApiKey.DescribeGroups, 5, { groups: [GROUP] });
  const row = await world.h.db.prisma.topic.findFirstOrThrow({
    where: { organizationId: ORG_A, name: TOPIC },
    select: { id: true, partitionCount: true, configs: true, kafkaTopicId: true },
  });
  return blanked({ records, configs, offsets, group, row });
}

describe("tenant B's key over the Kafka port", () => {
  it("sees A's topics, topic ids and groups exactly as ones that exist nowhere, through every API that names them, and changes nothing of A's", async () => {
    const before = await stateOfA();
    expect(before).toContain('"committedOffset":"3n"');
    const { UNKNOWN_TOPIC_OR_PARTITION, UNKNOWN_TOPIC_ID } = ErrorCode;

    const produced = await sameAsMissingTopic((name) =>
      b.call(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name, partitionData: [{ index: 0, records: batchOf("from-b") }] }],
      }),
    );
    expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const fetched = await sameAsMissingTopic((name) => b.call(ApiKey.Fetch, 12, fetchBody(name, 0, 0)));
    expect(fetched.responses[0]!.partitions[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const listed = await sameAsMissingTopic((name) =>
      b.call(ApiKey.ListOffsets, 7, {
        replicaId: -1,
        isolationLevel: 0,
        topics: [{ name, partitions: [{ partitionIndex: 0, timestamp: -2n }] }],
      }),
    );
    expect(listed.topics[0]!.partitions[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const byName = await sameAsMissingTopic((name) =>
      b.call(ApiKey.Metadata, 12, { topics: [{ name, topicId: ZERO_UUID }], allowAutoTopicCreation: true }),
    );
    expect(byName.topics[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);
    const byId = await sameAsMissing(topicIdA, randomUUID(), (topicId) =>
      b.call(ApiKey.Metadata, 12, { topics: [{ name: null, topicId }], allowAutoTopicCreation: false }),
    );
    expect(byId.topics[0]!.errorCode).toBe(UNKNOWN_TOPIC_ID);
    const everything = await b.call(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false });
    expect(everything.topics.map((t) => t.name)).toEqual(["b-own"]);

    const epochs = await sameAsMissingTopic((topic) =>
      b.call(ApiKey.OffsetForLeaderEpoch, 4, {
        replicaId: -1,
        topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }],
      }),
    );
    expect(epochs.topics[0]!.partitions[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const described = await sameAsMissingTopic((resourceName) =>
      b.call(ApiKey.DescribeConfigs, 4, {
        resources: [{ resourceType: ConfigResourceType.TOPIC, resourceName, configurationKeys: null }],
      }),
    );
    expect(described.results[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const altered = await sameAsMissingTopic((resourceName) =>
      b.call(ApiKey.AlterConfigs, 2, alterConfigsBody(resourceName, [["retention.ms", "1"]])),
    );
    expect(altered.responses[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const incremental = await sameAsMissingTopic((resourceName) =>
      b.call(
        ApiKey.IncrementalAlterConfigs,
        1,
        incrementalAlterBody(resourceName, [["retention.ms", 0, "1"]]),
      ),
    );
    expect(incremental.responses[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const grown = await sameAsMissingTopic((name) => createPartitions(b, name, 4));
    expect(grown.results[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const truncated = await sameAsMissingTopic((name) => deleteRecordsBefore(b, name, 0, -1n));
    expect(truncated.topics[0]!.partitions[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const deletedByName = await sameAsMissingTopic((name) =>
      b.call(ApiKey.DeleteTopics, 6, { topics: [{ name, topicId: ZERO_UUID }], timeoutMs: 5000 }),
    );
    expect(deletedByName.responses[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);
    const deletedById = await sameAsMissing(topicIdA, randomUUID(), (topicId) =>
      b.call(ApiKey.DeleteTopics, 6, { topics: [{ name: null, topicId }], timeoutMs: 5000 }),
    );
    expect(deletedById.responses[0]!.errorCode).toBe(UNKNOWN_TOPIC_ID);

    const dirs = await sameAsMissingTopic((topic) =>
      b.call(ApiKey.DescribeLogDirs, 4, { topics: [{ topic, partitions: [0, 1] }] }),
    );
    expect(JSON.stringify(dirs.results.map((r) => r.topics))).not.toContain(TOPIC);

    // Groups: A's group id is, to B, a group of its own tenant that never existed.
    const coordinator = await sameAsMissingGroup((key) =>
      b.call(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: [key] }),
    );
    expect(coordinator.coordinators[0]!.errorCode).toBe(0);

    const committed = await sameAsMissingGroup((groupId) =>
      b.call(ApiKey.OffsetCommit, 8, {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: "",
        topics: [
          { name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: null }] },
        ],
      }),
    );
    expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);

    const fetchedOffsets = await sameAsMissingGroup((groupId) =>
      b.call(ApiKey.OffsetFetch, 8, { groups: [{ groupId, topics: null }] }),
    );
    expect(fetchedOffsets.groups[0]).toMatchObject({ errorCode: 0, topics: [] });
    const namedOffsets = await sameAsMissingGroup((groupId) =>
      b.call(ApiKey.OffsetFetch, 7, { groupId, topics: [{ name: TOPIC, partitionIndexes: [0, 1] }] }),
    );
    expect(namedOffsets.topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([-1n, -1n]);

    const groupDescribed = await sameAsMissingGroup((groupId) =>
      b.call(ApiKey.DescribeGroups, 5, { groups: [groupId] }),
    );
    expect(groupDescribed.groups[0]).toMatchObject({ groupState: "Dead", members: [] });

    const heartbeat = await sameAsMissingGroup((groupId) =>
      b.call(ApiKey.Heartbeat, 4, { groupId, generationId: 1, memberId: "someone" }),
    );
    expect(heartbeat.errorCode).not.toBe(0);
    const synced = await sameAsMissingGroup((groupId) =>
      b.call(ApiKey.SyncGroup, 5, {
        groupId,
        generationId: 1,
        memberId: "someone",
        protocolType: "consumer",
        protocolName: "range",
        assignments: [],
      }),
    );
    expect(synced.errorCode).not.toBe(0);
    const left = await sameAsMissingGroup((groupId) =>
      b.call(ApiKey.LeaveGroup, 4, { groupId, members: [{ memberId: "someone" }] }),
    );
    expect(left.errorCode === 0 ? left.members[0]!.errorCode : left.errorCode).not.toBe(0);

    const offsetDeleted = await sameAsMissingGroup((groupId) =>
      b.call(ApiKey.OffsetDelete, 0, {
        groupId,
        topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0 }] }],
      }),
    );
    expect(offsetDeleted.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);

    // The group B's own requests above made in its tenant is deleted, the same for either name;
    // A's group of that name stays (checked below).
    await sameAsMissingGroup((groupId) => b.call(ApiKey.DeleteGroups, 2, { groupsNames: [groupId] }));

    expect(b.closed).toBe(false);
    expect(await stateOfA()).toBe(before);
  });

  it("kafkajs with B's key: listTopics shows B's only, A's group has no offsets, A's topic fails metadata as a missing one", async () => {
    const kafka = new Kafka({
      brokers: [world.bootstrap],
      sasl: { mechanism: "plain", username: keyB.id, password: keyB.secret },
      retry: { retries: 0 },
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    expect(await admin.listTopics()).toEqual(["b-own"]);
    expect(await admin.fetchOffsets({ groupId: GROUP })).toEqual(
      await admin.fetchOffsets({ groupId: GHOST_GROUP }),
    );
    expect(await admin.fetchOffsets({ groupId: GROUP })).toEqual([]);
    const failure = (topic: string) =>
      admin.fetchTopicMetadata({ topics: [topic] }).then(
        () => "resolved",
        (error: { type?: string }) => error.type,
      );
    expect(await failure(TOPIC)).toBe("UNKNOWN_TOPIC_OR_PARTITION");
    expect(await failure(GHOST_TOPIC)).toBe("UNKNOWN_TOPIC_OR_PARTITION");
    await admin.disconnect();
  });
});

const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

function batchOf(value: string): Buffer {
  // Built by the log store's own encoder: a valid v2 batch, so only the topic decides the answer.
  return encodeRecordBatch([{ key: Buffer.from("k"), value: Buffer.from(value) }], {
    baseOffset: 0,
    appendTimeMs: Date.now(),
  });
}
