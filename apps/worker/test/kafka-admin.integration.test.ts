import { PARTITIONS_FROZEN_EXPLANATION } from "@lastword/api/topic-rules";
import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { type Admin, ConfigResourceTypes, Kafka, logLevel, type SASLOptions } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alterConfigsBody,
  createPartitions,
  deleteRecordsBefore,
  incrementalAlterBody,
} from "./kafka-admin-requests";
import { createKafkaKey, createNamedTopic, plainKafkajs, RawKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { eventually } from "./test-topics";
import { testScheduling } from "./worker-harness";

// The Kafka admin APIs with kafkajs 2.2.4 against a real worker (scenarios 7, 8 and 10 of
// shared/reference/kafka-protocol.md §5.2), plus raw requests for what kafkajs does not send
// (IncrementalAlterConfigs, DescribeCluster, DescribeLogDirs, DeleteTopics by id) or drops on the
// way (the error messages, which are the REST API's).

const ORG_A = "org_admin_a";
const ORG_B = "org_admin_b";
type Key = { id: string; secret: string };
let keyARead: Key;
let keyB: Key;
const open: Admin[] = [];

const plain = (key: Key): SASLOptions => ({ mechanism: "plain", username: key.id, password: key.secret });

async function admin(key: Key): Promise<Admin> {
  const a = plainKafkajs(world.bootstrap, key, { clientId: "kafka-admin-test" }).admin();
  await a.connect();
  open.push(a);
  return a;
}

function raw(key: Key): Promise<RawKafka> {
  return RawKafka.login(world.worker.kafka!, key);
}

async function configsOf(tenant: string, name: string): Promise<unknown> {
  const topic = await world.h.db.prisma.topic.findUnique({
    where: { organizationId_name: { organizationId: tenant, name } },
  });
  return topic?.configs;
}

/**
 * Waits until the worker hosts every partition there is: kafkajs's admin refreshes the metadata of
 * all topics and fails on a partition still waiting for the claim loop (LEADER_NOT_AVAILABLE).
 */
async function allHosted(): Promise<void> {
  await eventually("every partition hosted", 20_000, async () =>
    world.worker.ownedPartitions().length === (await world.h.db.prisma.partition.count()) ? true : undefined,
  );
}

/** A quota row of `organizationId`: `maxPartitions` partitions and `requestsPerSecond`, 1 GiB stored, 1 MiB/s in. */
function partitionQuota(organizationId: string, maxPartitions: number, requestsPerSecond: number) {
  const limits = {
    maxPartitions,
    maxStoredBytes: 1n << 30n,
    produceBytesPerSecond: 1 << 20,
    requestsPerSecond,
  };
  return world.h.db.prisma.quota.create({ data: { organizationId, ...limits } });
}

const creatable = (name: string, numPartitions = -1, configs: [string, string | null][] = []) => ({
  name,
  numPartitions,
  replicationFactor: -1,
  assignments: [],
  configs: configs.map(([n, value]) => ({ name: n, value })),
});

const all = ["topics:read", "topics:write", "records:read", "records:write"] as const;
// The world's key is A's, with every scope.
const world = useKafkaWorld({ name: "kafka-admin", secret: "kafka-admin-secret" }, ORG_A, {
  topics: {
    compacted: [2, { "cleanup.policy": "compact", "min.compaction.lag.ms": "1000" }],
    events: [1, { "cleanup.policy": "delete" }],
    both: [1, { "cleanup.policy": "compact,delete" }],
  },
  partitions: 5,
  scopes: all,
  keyOptions: { scram: false },
  worker: { scheduling: testScheduling({ tickMs: 200 }) },
  setup: async (h) => {
    await createNamedTopic(h.db.prisma, ORG_B, "secret-b", 1, { "cleanup.policy": "compact" });
    keyARead = await createKafkaKey(h.db.prisma, ORG_A, ["topics:read", "records:read"], { scram: false });
    keyB = await createKafkaKey(h.db.prisma, ORG_B, all, { scram: false });
  },
});

beforeAll(allHosted);

afterAll(async () => {
  await Promise.all(open.map((a) => a.disconnect()));
});

describe("CreateTopics (scenario 7)", () => {
  it("createTopics with compact configs returns true, then false; waitForLeaders completes; -1 partitions is the service default", async () => {
    const a = await admin(world.key);
    const profiles = {
      topic: "profiles",
      numPartitions: 3,
      configEntries: [
        { name: "cleanup.policy", value: "compact" },
        { name: "min.compaction.lag.ms", value: "5000" },
      ],
    };
    expect(await a.createTopics({ topics: [profiles], waitForLeaders: true })).toBe(true);
    expect(await a.createTopics({ topics: [profiles], waitForLeaders: true })).toBe(false);
    const meta = await a.fetchTopicMetadata({ topics: ["profiles"] });
    expect(meta.topics[0]!.partitions).toHaveLength(3);
    expect(meta.topics[0]!.partitions.every((p) => p.leader === world.worker.kafka!.nodeId)).toBe(true);
    expect(await configsOf(ORG_A, "profiles")).toEqual({
      "cleanup.policy": "compact",
      "min.compaction.lag.ms": "5000",
    });
    expect(await a.createTopics({ topics: [{ topic: "defaulted" }], waitForLeaders: true })).toBe(true);
    const row = await world.h.db.prisma.topic.findFirstOrThrow({
      where: { organizationId: ORG_A, name: "defaulted" },
    });
    expect(row.partitionCount).toBe(1);
    const audit = await world.h.db.prisma.auditEvent.findFirst({
      where: { organizationId: ORG_A, action: "topic.created", targetId: row.id },
    });
    expect(audit).toMatchObject({ actorType: "apiKey", actorId: world.key.id });
  });

  it("invalid names, configs and too many partitions fail in kafkajs and carry our message on the wire", async () => {
    const a = await admin(world.key);
    const refusal = (topic: Parameters<Admin["createTopics"]>[0]["topics"][number]) =>
      a.createTopics({ topics: [topic] }).catch((e: { errors?: { type: string }[] }) => e.errors?.[0]?.type);
    expect(await refusal({ topic: "bad name!" })).toBe("INVALID_TOPIC_EXCEPTION");
    expect(await refusal({ topic: "ok", configEntries: [{ name: "cleanup.policy", value: "shred" }] })).toBe(
      "INVALID_CONFIG",
    );
    expect(await refusal({ topic: "ok", numPartitions: 1000 })).toBe("INVALID_PARTITIONS");

    const conn = await raw(world.key);
    const answer = await conn.call(ApiKey.CreateTopics, 5, {
      topics: [
        creatable("bad name!"),
        creatable(".."),
        creatable("bad-config", 1, [["cleanup.policy", "shred"]]),
        creatable("lagged", 1, [
          ["min.compaction.lag.ms", "10"],
          ["max.compaction.lag.ms", "5"],
        ]),
        creatable("too-many", 1000),
        creatable("zero", 0),
        creatable("no-value", 1, [["retention.ms", null]]),
        { ...creatable("replicated"), replicationFactor: 3 },
        creatable("compacted"),
      ],
      timeoutMs: 5000,
      validateOnly: false,
    });
    const by = Object.fromEntries(answer.topics.map((t) => [t.name, t]));
    expect(by["bad name!"]).toMatchObject({
      errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION,
      errorMessage: "name: may contain only letters, digits, '.', '_' and '-'",
    });
    expect(by[".."]).toMatchObject({
      errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION,
      errorMessage: "name: may not be '.' or '..'",
    });
    expect(by["bad-config"]).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: 'cleanup.policy must be delete, compact or compact,delete, got "shred"',
    });
    expect(by.lagged).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: "min.compaction.lag.ms (10) must not be greater than max.compaction.lag.ms (5)",
    });
    expect(by["too-many"]?.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(by["too-many"]?.errorMessage).toMatch(/^partitions: .*256/);
    expect(by.zero?.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(by["no-value"]).toMatchObject({ errorCode: ErrorCode.INVALID_CONFIG });
    expect(by.replicated).toMatchObject({ errorCode: ErrorCode.INVALID_REPLICATION_FACTOR });
    expect(by.replicated?.errorMessage).toContain("Replication is the service's own durability");
    expect(by.compacted).toMatchObject({
      errorCode: ErrorCode.TOPIC_ALREADY_EXISTS,
      errorMessage: 'Topic "compacted" already exists.',
    });
    const names = ["bad-config", "lagged", "too-many", "zero", "no-value", "replicated"];
    expect(
      await world.h.db.prisma.topic.count({ where: { organizationId: ORG_A, name: { in: names } } }),
    ).toBe(0);
    conn.close();
  });

  it("validateOnly creates nothing; v5 answers the configs with their sources, v7 the topic id Metadata shows", async () => {
    const conn = await raw(world.key);
    const dry = await conn.call(ApiKey.CreateTopics, 7, {
      topics: [creatable("dry-run", 2, [["cleanup.policy", "compact"]])],
      timeoutMs: 5000,
      validateOnly: true,
    });
    expect(dry.topics[0]).toMatchObject({ errorCode: 0, numPartitions: 2, replicationFactor: 1 });
    expect(await world.h.db.prisma.topic.count({ where: { name: "dry-run" } })).toBe(0);

    const made = await conn.call(ApiKey.CreateTopics, 7, {
      topics: [creatable("with-id", 2, [["cleanup.policy", "compact"]])],
      timeoutMs: 5000,
      validateOnly: false,
    });
    const created = made.topics[0]!;
    expect(created).toMatchObject({ errorCode: 0, errorMessage: null, numPartitions: 2 });
    const configs = Object.fromEntries((created.configs ?? []).map((c) => [c.name, c]));
    expect(configs["cleanup.policy"]).toMatchObject({ value: "compact", configSource: 1 });
    expect(configs["retention.ms"]).toMatchObject({ value: "604800000", configSource: 5 });
    const row = await world.h.db.prisma.topic.findFirstOrThrow({
      where: { organizationId: ORG_A, name: "with-id" },
    });
    expect(created.topicId).toBe(row.kafkaTopicId);
    conn.close();
    await allHosted();
  });

  it("the tenant's partition quota refuses with POLICY_VIOLATION and the REST API's message", async () => {
    await partitionQuota(ORG_B, 3, 100);
    const conn = await raw(keyB);
    const answer = await conn.call(ApiKey.CreateTopics, 4, {
      topics: [creatable("fits", 2), creatable("over", 2)],
      timeoutMs: 5000,
      validateOnly: false,
    });
    expect(answer.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ["fits", 0],
      ["over", ErrorCode.POLICY_VIOLATION],
    ]);
    expect(answer.topics[1]!.errorMessage).toBe(
      "This would bring the tenant to 5 partitions; its quota is 3.",
    );
    expect(await world.h.db.prisma.topic.count({ where: { organizationId: ORG_B, name: "over" } })).toBe(0);
    await conn.call(ApiKey.DeleteTopics, 4, { topicNames: ["fits"], timeoutMs: 5000 });
    await world.h.db.prisma.quota.delete({ where: { organizationId: ORG_B } });
    conn.close();
  });

  it("parallel CreateTopics and CreatePartitions over many connections never pass the partition quota", async () => {
    // Issue 28.6: the quota is checked under a per-tenant lock in the create's own transaction.
    const tenant = "org_admin_race";
    await createNamedTopic(world.h.db.prisma, tenant, "grown", 1, { "cleanup.policy": "delete" });
    await partitionQuota(tenant, 6, 1000);
    const key = await createKafkaKey(world.h.db.prisma, tenant, ["topics:read", "topics:write"], {
      scram: false,
    });
    const conns = await Promise.all(Array.from({ length: 12 }, () => raw(key)));
    const answers = await Promise.all(
      conns.map(async (conn, i) => {
        if (i % 4 === 3) return (await createPartitions(conn, "grown", 3)).results[0]!;
        const answer = await conn.call(ApiKey.CreateTopics, 4, {
          topics: [creatable(`race-${i}`, 1)],
          timeoutMs: 5000,
          validateOnly: false,
        });
        return answer.topics[0]!;
      }),
    );
    for (const conn of conns) conn.close();
    for (const answer of answers) {
      expect([0, ErrorCode.POLICY_VIOLATION, ErrorCode.INVALID_PARTITIONS]).toContain(answer.errorCode);
    }
    const used = await world.h.db.prisma.topic.aggregate({
      where: { organizationId: tenant },
      _sum: { partitionCount: true },
    });
    expect(used._sum.partitionCount).toBeLessThanOrEqual(6);
    const rows = await world.h.db.prisma.partition.count({ where: { topic: { organizationId: tenant } } });
    expect(rows).toBe(used._sum.partitionCount);
    expect(answers.filter((a) => a.errorCode === ErrorCode.POLICY_VIOLATION).length).toBeGreaterThan(0);
    await allHosted();
  });

  it("a key without topics:write is refused with TOPIC_AUTHORIZATION_FAILED and the REST API's text", async () => {
    const conn = await raw(keyARead);
    const answer = await conn.call(ApiKey.CreateTopics, 5, {
      topics: [creatable("unwritable")],
      timeoutMs: 5000,
      validateOnly: false,
    });
    expect(answer.topics[0]).toMatchObject({
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      errorMessage: "This API key lacks the topics:write scope this operation needs.",
    });
    expect(await world.h.db.prisma.topic.count({ where: { name: "unwritable" } })).toBe(0);
    conn.close();
  });
});

describe("configs (scenario 8)", () => {
  it("describeConfigs shows sources 1 and 5; alterConfigs replaces the whole set; a non-compact policy is refused with 44", async () => {
    const a = await admin(world.key);
    const describe = async () => {
      const { resources } = await a.describeConfigs({
        resources: [{ type: ConfigResourceTypes.TOPIC, name: "compacted" }],
        includeSynonyms: false,
      });
      expect(resources[0]!.errorCode).toBe(0);
      return Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e]));
    };
    const before = await describe();
    expect(before["cleanup.policy"]).toMatchObject({
      configValue: "compact",
      configSource: 1,
      isDefault: false,
    });
    expect(before["min.compaction.lag.ms"]).toMatchObject({ configValue: "1000", configSource: 1 });
    expect(before["retention.ms"]).toMatchObject({
      configValue: "604800000",
      configSource: 5,
      isDefault: true,
    });
    // With synonyms: the override, then the default under the broker-level name Kafka gives it.
    const { resources: synonyms } = await a.describeConfigs({
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: "compacted",
          configNames: ["cleanup.policy", "retention.ms"],
        },
      ],
      includeSynonyms: true,
    });
    expect(
      Object.fromEntries(synonyms[0]!.configEntries.map((e) => [e.configName, e.configSynonyms])),
    ).toEqual({
      "cleanup.policy": [
        { configName: "cleanup.policy", configValue: "compact", configSource: 1 },
        { configName: "log.cleanup.policy", configValue: "delete", configSource: 5 },
      ],
      "retention.ms": [{ configName: "log.retention.ms", configValue: "604800000", configSource: 5 }],
    });

    await a.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: "compacted",
          configEntries: [
            { name: "cleanup.policy", value: "compact" },
            { name: "delete.retention.ms", value: "3600000" },
          ],
        },
      ],
    });
    const after = await describe();
    expect(after["delete.retention.ms"]).toMatchObject({ configValue: "3600000", configSource: 1 });
    // Left out of the new set: back to its default, as Kafka's AlterConfigs does.
    expect(after["min.compaction.lag.ms"]).toMatchObject({
      configValue: "0",
      configSource: 5,
      isDefault: true,
    });
    expect(await configsOf(ORG_A, "compacted")).toEqual({
      "cleanup.policy": "compact",
      "delete.retention.ms": "3600000",
    });

    await expect(
      a.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: "compacted",
            configEntries: [{ name: "cleanup.policy", value: "delete" }],
          },
        ],
      }),
    ).rejects.toMatchObject({ type: "POLICY_VIOLATION" });
    expect(await configsOf(ORG_A, "compacted")).toEqual({
      "cleanup.policy": "compact",
      "delete.retention.ms": "3600000",
    });
  });

  it("AlterConfigs answers the refusals with our messages; validateOnly changes nothing; DescribeConfigs v4 has synonyms, type and docs", async () => {
    const conn = await raw(world.key);
    const alter = (name: string, configs: [string, string][], validateOnly = false) =>
      conn
        .call(ApiKey.AlterConfigs, 2, alterConfigsBody(name, configs, validateOnly))
        .then((r) => r.responses[0]!);
    expect(await alter("compacted", [["cleanup.policy", "delete"]])).toMatchObject({
      errorCode: ErrorCode.POLICY_VIOLATION,
      errorMessage: expect.stringContaining(
        'Topic "compacted" is compacted; cleanup.policy=delete would stop compaction',
      ),
    });
    expect(await alter("compacted", [["retention.ms", "soon"]])).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: expect.stringContaining("retention.ms must be"),
    });
    expect(await alter("nope", [["cleanup.policy", "compact"]])).toMatchObject({
      errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      errorMessage: 'Topic "nope" does not exist.',
    });
    expect(await alter("events", [["retention.ms", "1000"]], true)).toMatchObject({ errorCode: 0 });
    expect(await configsOf(ORG_A, "events")).toEqual({ "cleanup.policy": "delete" });
    const broker = await conn.call(ApiKey.AlterConfigs, 2, {
      resources: [{ resourceType: 4, resourceName: String(world.worker.kafka!.nodeId), configs: [] }],
      validateOnly: false,
    });
    expect(broker.responses[0]!.errorCode).toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);

    const described = await conn.call(ApiKey.DescribeConfigs, 4, {
      resources: [
        { resourceType: 2, resourceName: "events", configurationKeys: ["cleanup.policy", "retention.ms"] },
      ],
      includeSynonyms: true,
      includeDocumentation: true,
    });
    const entries = described.results[0]!.configs;
    expect(entries.map((e) => e.name)).toEqual(["cleanup.policy", "retention.ms"]);
    expect(entries[0]).toMatchObject({
      value: "delete",
      configSource: 1,
      configType: 7,
      readOnly: false,
      synonyms: [
        { name: "cleanup.policy", value: "delete", source: 1 },
        { name: "log.cleanup.policy", value: "delete", source: 5 },
      ],
    });
    expect(entries[0]!.documentation).toContain("compact keeps the latest value per key");
    expect(entries[1]).toMatchObject({
      configSource: 5,
      configType: 5,
      synonyms: [{ name: "log.retention.ms", value: "604800000", source: 5 }],
    });
    conn.close();
  });

  it("IncrementalAlterConfigs: SET, APPEND and SUBTRACT on the policy list, DELETE back to the default", async () => {
    const conn = await raw(world.key);
    const incremental = (name: string, ops: [string, number, string | null][], validateOnly = false) =>
      conn
        .call(ApiKey.IncrementalAlterConfigs, 1, incrementalAlterBody(name, ops, validateOnly))
        .then((r) => r.responses[0]!);
    expect(
      await incremental("both", [
        ["retention.ms", 0, "86400000"],
        ["cleanup.policy", 3, "delete"],
      ]),
    ).toMatchObject({ errorCode: 0 });
    expect(await configsOf(ORG_A, "both")).toEqual({
      "cleanup.policy": "compact",
      "retention.ms": "86400000",
    });
    expect(await incremental("both", [["cleanup.policy", 2, "delete"]])).toMatchObject({ errorCode: 0 });
    expect(await configsOf(ORG_A, "both")).toEqual({
      "cleanup.policy": "compact,delete",
      "retention.ms": "86400000",
    });
    expect(await incremental("both", [["retention.ms", 1, null]])).toMatchObject({ errorCode: 0 });
    expect(await configsOf(ORG_A, "both")).toEqual({ "cleanup.policy": "compact,delete" });

    expect(await incremental("both", [["cleanup.policy", 3, "compact"]])).toMatchObject({
      errorCode: ErrorCode.POLICY_VIOLATION,
    });
    expect(await incremental("both", [["retention.ms", 2, "5"]])).toMatchObject({
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: expect.stringContaining("not a list"),
    });
    expect(await incremental("both", [["retention.ms", 0, "1000"]], true)).toMatchObject({ errorCode: 0 });
    expect(await configsOf(ORG_A, "both")).toEqual({ "cleanup.policy": "compact,delete" });
    conn.close();
  });

  it("AlterConfigs refuses a change that would make a pending erasure miss its deadline, naming the request (issue 28.3)", async () => {
    await createNamedTopic(world.h.db.prisma, ORG_A, "erased", 1, { "cleanup.policy": "compact" });
    const topic = await world.h.db.prisma.topic.findFirstOrThrow({
      where: { organizationId: ORG_A, name: "erased" },
    });
    const deadlineAt = new Date(Date.now() + 60_000);
    const request = await world.h.db.prisma.erasureRequest.create({
      data: {
        organizationId: ORG_A,
        subjectKey: Buffer.from("user-1"),
        subjectKeys: [Buffer.from("user-1").toString("base64")],
        topicIds: [topic.id],
        status: "tombstoned",
        deadlineAt,
      },
    });
    // Pending, on no partition this worker guards (so nothing proves it purged under the test).
    await world.h.db.prisma.erasureTombstone.create({
      data: {
        requestId: request.id,
        organizationId: ORG_A,
        topicId: topic.id,
        partitionId: "unhosted",
        partitionIndex: 0,
        subjectKey: Buffer.from("user-1").toString("base64"),
        offset: 0n,
        writtenAt: new Date(),
        deadlineAt,
      },
    });
    const conn = await raw(world.key);
    const answer = await conn.call(
      ApiKey.IncrementalAlterConfigs,
      1,
      incrementalAlterBody("erased", [["min.compaction.lag.ms", 0, "9000000000000"]]),
    );
    expect(answer.responses[0]).toMatchObject({
      errorCode: ErrorCode.POLICY_VIOLATION,
      errorMessage: expect.stringContaining(`pending erasure request(s) ${request.id}`),
    });
    expect(await configsOf(ORG_A, "erased")).toEqual({ "cleanup.policy": "compact" });
    // A change that keeps the deadline is not held up by the request.
    const fine = await conn.call(
      ApiKey.IncrementalAlterConfigs,
      1,
      incrementalAlterBody("erased", [["min.compaction.lag.ms", 0, "1000"]]),
    );
    expect(fine.responses[0]!.errorCode).toBe(0);
    await world.h.db.prisma.erasureRequest.delete({ where: { id: request.id } });
    conn.close();
  });
});

describe("partitions and records (scenario 10)", () => {
  it("createPartitions on a compacted topic is refused with the reason; on a delete-policy topic it adds them", async () => {
    const a = await admin(world.key);
    await expect(
      a.createPartitions({ topicPartitions: [{ topic: "compacted", count: 4 }] }),
    ).rejects.toMatchObject({ type: "POLICY_VIOLATION" });
    const conn = await raw(world.key);
    const refused = await createPartitions(conn, "compacted", 4);
    expect(refused.results[0]).toMatchObject({
      errorCode: ErrorCode.POLICY_VIOLATION,
      errorMessage: `Topic "compacted" is compacted; its partition count is frozen. ${PARTITIONS_FROZEN_EXPLANATION}`,
    });
    const shrink = await createPartitions(conn, "events", 1);
    expect(shrink.results[0]!.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    const dry = await createPartitions(conn, "events", 3, { validateOnly: true });
    expect(dry.results[0]!.errorCode).toBe(0);
    conn.close();
    expect(
      (await world.h.db.prisma.topic.findFirstOrThrow({ where: { organizationId: ORG_A, name: "events" } }))
        .partitionCount,
    ).toBe(1);

    await a.createPartitions({ topicPartitions: [{ topic: "events", count: 3 }] });
    expect(
      (await world.h.db.prisma.topic.findFirstOrThrow({ where: { organizationId: ORG_A, name: "events" } }))
        .partitionCount,
    ).toBe(3);
    await eventually("the new partitions have a leader", 20_000, async () => {
      // kafkajs throws LEADER_NOT_AVAILABLE until the claim loop took them.
      const meta = await a.fetchTopicMetadata({ topics: ["events"] }).catch(() => undefined);
      return meta?.topics[0]?.partitions.length === 3 ? true : undefined;
    });
  });

  it("deleteTopicRecords gets 44 on a compact-only topic and moves the log start on compact,delete", async () => {
    const kafka = new Kafka({
      brokers: [world.bootstrap],
      sasl: plain(world.key),
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer();
    await producer.connect();
    const messages = Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: 0 }));
    await producer.send({ topic: "compacted", messages });
    await producer.send({ topic: "both", messages });
    await producer.disconnect();
    const a = await admin(world.key);
    // kafkajs finds the leaders in the metadata it already holds for the topic.
    await a.fetchTopicMetadata({ topics: ["compacted"] });

    const refused = await a
      .deleteTopicRecords({ topic: "compacted", partitions: [{ partition: 0, offset: "3" }] })
      .catch(
        (e: { cause?: { partitions?: { error: { type: string } }[] } }) =>
          e.cause?.partitions?.[0]?.error.type,
      );
    expect(refused).toBe("POLICY_VIOLATION");
    expect((await a.fetchTopicOffsets("compacted")).find((p) => p.partition === 0)?.low).toBe("0");

    await a.fetchTopicMetadata({ topics: ["both"] });
    await a.deleteTopicRecords({ topic: "both", partitions: [{ partition: 0, offset: "3" }] });
    expect(await a.fetchTopicOffsets("both")).toEqual([
      expect.objectContaining({ partition: 0, low: "3", high: "5" }),
    ]);
    const conn = await raw(world.key);
    const toHigh = await deleteRecordsBefore(conn, "both", 0, -1n);
    expect(toHigh.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: 5n });
    // A Produce answer reports the log start as of its append.
    const after = kafka.producer();
    await after.connect();
    const [sent] = await after.send({ topic: "both", messages: [{ key: "k5", value: "v5", partition: 0 }] });
    expect(sent).toMatchObject({ errorCode: 0, baseOffset: "5", logStartOffset: "5" });
    await after.disconnect();
    const unwritable = await raw(keyARead);
    const noScope = await deleteRecordsBefore(unwritable, "events", 0, 0n);
    expect(noScope.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    conn.close();
    unwritable.close();
  });
});

describe("DeleteTopics, DescribeCluster, DescribeLogDirs", () => {
  it("deleteTopics removes a topic by name; v6 deletes by topic id; an unknown one is UNKNOWN_TOPIC_OR_PARTITION", async () => {
    const a = await admin(world.key);
    await a.createTopics({ topics: [{ topic: "doomed" }, { topic: "doomed-by-id" }], waitForLeaders: true });
    await a.deleteTopics({ topics: ["doomed"] });
    expect(await world.h.db.prisma.topic.count({ where: { organizationId: ORG_A, name: "doomed" } })).toBe(0);
    expect(await a.listTopics()).not.toContain("doomed");
    // kafkajs retries the unknown topic, then gives up with it as the cause.
    await expect(a.deleteTopics({ topics: ["never-was"] })).rejects.toMatchObject({
      cause: { type: "UNKNOWN_TOPIC_OR_PARTITION" },
    });

    const row = await world.h.db.prisma.topic.findFirstOrThrow({
      where: { organizationId: ORG_A, name: "doomed-by-id" },
    });
    const conn = await raw(world.key);
    const byId = await conn.call(ApiKey.DeleteTopics, 6, {
      topics: [
        { name: null, topicId: row.kafkaTopicId },
        { name: null, topicId: "11111111-2222-3333-4444-555555555555" },
      ],
      timeoutMs: 5000,
    });
    expect(byId.responses).toEqual([
      { name: "doomed-by-id", topicId: row.kafkaTopicId, errorCode: 0, errorMessage: null },
      expect.objectContaining({ errorCode: ErrorCode.UNKNOWN_TOPIC_ID }),
    ]);
    expect(await world.h.db.prisma.topic.count({ where: { id: row.id } })).toBe(0);
    conn.close();
  });

  it("DescribeCluster shows the live workers, the controller and the tenant's own cluster id, as Metadata does", async () => {
    const a = await admin(world.key);
    const viaMetadata = await a.describeCluster();
    const conn = await raw(world.key);
    const described = await conn.call(ApiKey.DescribeCluster, 1, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
    });
    expect(described).toMatchObject({
      errorCode: 0,
      clusterId: viaMetadata.clusterId,
      controllerId: viaMetadata.controller,
      brokers: [
        {
          brokerId: world.worker.kafka!.nodeId,
          host: world.worker.kafka!.host,
          port: world.worker.kafka!.port,
          rack: null,
        },
      ],
    });
    const connB = await raw(keyB);
    const other = await connB.call(ApiKey.DescribeCluster, 0, { includeClusterAuthorizedOperations: false });
    expect(other.clusterId).not.toBe(described.clusterId);
    conn.close();
    connB.close();
  });

  it("DescribeLogDirs lists this worker's partitions of the tenant's topics with the sizes the console shows", async () => {
    const compacted = await world.h.db.prisma.topic.findFirstOrThrow({
      where: { organizationId: ORG_A, name: "compacted" },
      include: { partitions: { where: { index: 0 } } },
    });
    const reported = await eventually("the size of compacted/0 reported", 20_000, async () => {
      const p = await world.h.db.prisma.partition.findUniqueOrThrow({
        where: { id: compacted.partitions[0]!.id },
      });
      const size = (p.stats as { sizeBytes?: number } | null)?.sizeBytes;
      return size && size > 0 ? size : undefined;
    });
    const conn = await raw(world.key);
    const dirs = await conn.call(ApiKey.DescribeLogDirs, 4, {
      topics: [
        { topic: "compacted", partitions: [0, 1] },
        { topic: "secret-b", partitions: [0] },
      ],
    });
    expect(dirs.errorCode).toBe(0);
    expect(dirs.results).toHaveLength(1);
    const topics = dirs.results[0]!.topics;
    expect(topics.map((t) => t.name)).toEqual(["compacted"]);
    const p0 = topics[0]!.partitions.find((p) => p.partitionIndex === 0)!;
    // The report may have moved on since; it is read from the same row the console reads.
    const now = await world.h.db.prisma.partition.findUniqueOrThrow({
      where: { id: compacted.partitions[0]!.id },
    });
    expect([BigInt(reported), BigInt((now.stats as { sizeBytes: number }).sizeBytes)]).toContain(
      p0.partitionSize,
    );
    const everything = await conn.call(ApiKey.DescribeLogDirs, 1, { topics: null });
    const names = everything.results[0]!.topics.map((t) => t.name).sort();
    expect(names).toContain("compacted");
    expect(names).not.toContain("secret-b");
    conn.close();
  });
});

describe("tenant isolation", () => {
  it("another tenant's topic is unknown through every admin API, and the same name is its own topic", async () => {
    const a = await admin(world.key);
    const secret = await world.h.db.prisma.topic.findFirstOrThrow({
      where: { organizationId: ORG_B, name: "secret-b" },
    });
    const conn = await raw(world.key);
    const described = await conn.call(ApiKey.DescribeConfigs, 2, {
      resources: [{ resourceType: 2, resourceName: "secret-b", configurationKeys: null }],
      includeSynonyms: false,
    });
    expect(described.results[0]).toMatchObject({
      errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      errorMessage: 'Topic "secret-b" does not exist.',
      configs: [],
    });
    const altered = await conn.call(
      ApiKey.AlterConfigs,
      1,
      alterConfigsBody("secret-b", [["cleanup.policy", "compact"]]),
    );
    expect(altered.responses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const incremental = await conn.call(
      ApiKey.IncrementalAlterConfigs,
      0,
      incrementalAlterBody("secret-b", [["retention.ms", 0, "1"]]),
    );
    expect(incremental.responses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const partitions = await createPartitions(conn, "secret-b", 2, { version: 1 });
    expect(partitions.results[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const records = await deleteRecordsBefore(conn, "secret-b", 0, 0n, 1);
    expect(records.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const deleted = await conn.call(ApiKey.DeleteTopics, 6, {
      topics: [
        { name: "secret-b", topicId: "00000000-0000-0000-0000-000000000000" },
        { name: null, topicId: secret.kafkaTopicId },
      ],
      timeoutMs: 5000,
    });
    expect(deleted.responses.map((r) => r.errorCode)).toEqual([
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCode.UNKNOWN_TOPIC_ID,
    ]);
    conn.close();
    await expect(
      a.describeConfigs({
        resources: [{ type: ConfigResourceTypes.TOPIC, name: "secret-b" }],
        includeSynonyms: false,
      }),
    ).rejects.toMatchObject({ type: "UNKNOWN_TOPIC_OR_PARTITION" });

    // The same name in tenant A is a topic of its own; B's is untouched.
    expect(
      await a.createTopics({ topics: [{ topic: "secret-b", numPartitions: 2 }], waitForLeaders: false }),
    ).toBe(true);
    const after = await world.h.db.prisma.topic.findUniqueOrThrow({ where: { id: secret.id } });
    expect(after).toMatchObject({ partitionCount: 1, configs: { "cleanup.policy": "compact" } });
    const b = await admin(keyB);
    expect(await b.listTopics()).toEqual(["secret-b", "secret-b.latest"]);
  });
});
