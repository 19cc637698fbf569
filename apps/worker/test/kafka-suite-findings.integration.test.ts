import { createRequire } from "node:module";
import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { type Admin, Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic, fetchBody, RawKafka } from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// What kafkajs's own test suite, run against a worker, found Kafka does and we did not: Metadata
// for a name no topic can have, CreateTopics answering before its partitions have leaders (and
// timing out), ListOffsets v0, the message.timestamp.* bounds on produce, and CreateTopics with a
// manual replica assignment naming this cluster's brokers.

const require = createRequire(import.meta.url);
const ORG = "org_suite_findings";
let h: WorkerHarness;
let key: { id: string; secret: string };
let worker: RunningWorker;
let admin: Admin;
let client: Kafka;

const creatable = (
  name: string,
  numPartitions: number,
  assignments: { partitionIndex: number; brokerIds: number[] }[] = [],
) => ({
  name,
  numPartitions,
  replicationFactor: -1,
  assignments,
  configs: [],
});

async function metadata(raw: RawKafka, name: string) {
  return (await raw.call(ApiKey.Metadata, 9, { topics: [{ name }], allowAutoTopicCreation: false }))
    .topics[0]!;
}

beforeAll(async () => {
  h = await openWorkerHarness({ name: "kafka-suite-findings" });
  key = await createKafkaKey(h.db.prisma, ORG, [...CLIENT_SCOPES, "topics:write"]);
  await createNamedTopic(h.db.prisma, ORG, "present", 1);
});

afterAll(async () => {
  await admin?.disconnect();
  await h?.close();
});

async function startWorker(claimIntervalMs: number) {
  worker = await h.startWorker({ kafka: { host: "127.0.0.1", port: 0 }, claimIntervalMs });
  client = new Kafka({
    brokers: [`${worker.kafka!.host}:${worker.kafka!.port}`],
    sasl: { mechanism: "plain", username: key.id, password: key.secret },
    logLevel: logLevel.NOTHING,
    retry: { retries: 2, initialRetryTime: 50 },
  });
  admin = client.admin();
  await admin.connect();
}

describe("CreateTopics waits for leaders", () => {
  it("answers REQUEST_TIMED_OUT when its partitions got no leader within the request's timeout; the topic exists", async () => {
    // A worker that claims new partitions only every minute: none gets a leader in time.
    await startWorker(60_000);
    await eventually("the first partition hosted", 20_000, async () =>
      worker.ownedPartitions().length === 1 ? true : undefined,
    );
    const raw = await RawKafka.login(worker.kafka!, key);
    const answer = await raw.call(ApiKey.CreateTopics, 5, {
      topics: [creatable("slow", 2)],
      timeoutMs: 300,
      validateOnly: false,
    });
    expect(answer.topics[0]).toMatchObject({ name: "slow", errorCode: ErrorCode.REQUEST_TIMED_OUT });
    expect(answer.topics[0]!.errorMessage).toContain("no leader within the request's 300 ms");
    expect(await h.db.prisma.topic.count({ where: { organizationId: ORG, name: "slow" } })).toBe(1);
    raw.close();
    await admin.disconnect();
    await worker.stop();
  });

  it("answers once every new partition has a leader: the Metadata asked right after names them all", async () => {
    await startWorker(500);
    const raw = await RawKafka.login(worker.kafka!, key);
    const answer = await raw.call(ApiKey.CreateTopics, 5, {
      topics: [creatable("fresh", 4)],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    expect(answer.topics[0]).toMatchObject({ name: "fresh", errorCode: 0 });
    const topic = await metadata(raw, "fresh");
    expect(topic.errorCode).toBe(0);
    expect(topic.partitions.map((p) => [p.partitionIndex, p.errorCode, p.leaderId])).toEqual(
      [0, 1, 2, 3].map((i) => [i, 0, worker.kafka!.nodeId]),
    );
    // A timeout of 0 does not wait (Kafka's rule): the answer is the creation's own.
    const quick = await raw.call(ApiKey.CreateTopics, 5, {
      topics: [creatable("quick", 1)],
      timeoutMs: 0,
      validateOnly: false,
    });
    expect(quick.topics[0]).toMatchObject({ name: "quick", errorCode: 0 });
    // Its leader comes with the next claim; until then kafkajs's admin (which asks Metadata for
    // every topic) would retry LEADER_NOT_AVAILABLE in the tests below.
    await eventually("the quick topic led", 20_000, async () =>
      (await metadata(raw, "quick")).partitions[0]?.errorCode === 0 ? true : undefined,
    );
    raw.close();
  });
});

describe("Kafka behaviour the kafkajs suite checks", () => {
  it("Metadata for a name no topic can have is INVALID_TOPIC_EXCEPTION (not retried by kafkajs); a valid unknown one stays UNKNOWN_TOPIC_OR_PARTITION", async () => {
    const raw = await RawKafka.login(worker.kafka!, key);
    for (const name of ["bad name!", "..", "x".repeat(250), "ü"]) {
      expect((await metadata(raw, name)).errorCode, name).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    }
    expect((await metadata(raw, "no-such-topic")).errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect((await metadata(raw, "present")).errorCode).toBe(0);
    raw.close();
    await expect(admin.fetchTopicMetadata({ topics: ["bad name!"] })).rejects.toMatchObject({
      type: "INVALID_TOPIC_EXCEPTION",
    });
  });

  it("ListOffsets v0 answers its list of offsets, newest first, and kafkajs's v0 decoder reads it", async () => {
    const producer = client.producer();
    await producer.connect();
    await producer.send({
      topic: "present",
      messages: ["a", "b", "c"].map((value) => ({ key: value, value })),
    });
    await producer.disconnect();
    const raw = await RawKafka.login(worker.kafka!, key);
    const body = (timestamp: bigint, maxNumOffsets: number) => ({
      replicaId: -1,
      topics: [{ name: "present", partitions: [{ partitionIndex: 0, timestamp, maxNumOffsets }] }],
    });
    const offsets = async (timestamp: bigint, max: number) =>
      (await raw.call(ApiKey.ListOffsets, 0, body(timestamp, max))).topics[0]!.partitions[0]!;
    // Latest: the log end, then the (one) segment's base; earliest: the log start.
    expect(await offsets(-1n, 10)).toMatchObject({ errorCode: 0, oldStyleOffsets: [3n, 0n] });
    expect(await offsets(-1n, 1)).toMatchObject({ errorCode: 0, oldStyleOffsets: [3n] });
    expect(await offsets(-2n, 1)).toMatchObject({ errorCode: 0, oldStyleOffsets: [0n] });
    // A time before every record: no segment ends before it.
    expect(await offsets(1n, 10)).toMatchObject({ errorCode: 0, oldStyleOffsets: [] });

    const kafkajsV0 = require("kafkajs/src/protocol/requests/listOffsets/v0/response") as {
      decode(payload: Buffer): Promise<unknown>;
      parse(data: unknown): Promise<{ responses: { partitions: { offsets: string[] }[] }[] }>;
    };
    const payload = await raw.request(ApiKey.ListOffsets, 0, body(-1n, 10));
    const parsed = await kafkajsV0.parse(await kafkajsV0.decode(payload));
    expect(parsed.responses[0]!.partitions[0]!.offsets).toEqual(["3", "0"]);
    raw.close();
  });

  it("message.timestamp.* are accepted and enforced on produce with INVALID_TIMESTAMP; LogAppendTime restamps the batch", async () => {
    await admin.createTopics({
      topics: [
        {
          topic: "bounded",
          configEntries: [
            { name: "message.timestamp.type", value: "CreateTime" },
            { name: "message.timestamp.before.max.ms", value: String(3_600_000) },
            { name: "message.timestamp.after.max.ms", value: String(60_000) },
          ],
        },
        {
          topic: "differenced",
          configEntries: [{ name: "message.timestamp.difference.max.ms", value: "60000" }],
        },
        { topic: "appended", configEntries: [{ name: "message.timestamp.type", value: "LogAppendTime" }] },
      ],
    });
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        {
          type: 2,
          name: "bounded",
          configNames: ["message.timestamp.before.max.ms", "message.timestamp.after.max.ms"],
        },
      ],
    });
    expect(described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue])).toEqual([
      ["message.timestamp.before.max.ms", "3600000"],
      ["message.timestamp.after.max.ms", "60000"],
    ]);

    const producer = client.producer({ retry: { retries: 0 } });
    await producer.connect();
    const send = (topic: string, timestamp: number) =>
      producer.send({ topic, acks: -1, messages: [{ key: "k", value: "v", timestamp: String(timestamp) }] });
    const now = Date.now();
    await expect(send("bounded", now - 2 * 3_600_000)).rejects.toMatchObject({ type: "INVALID_TIMESTAMP" });
    await expect(send("bounded", now + 10 * 60_000)).rejects.toMatchObject({ type: "INVALID_TIMESTAMP" });
    await send("bounded", now - 30 * 60_000);
    await expect(send("differenced", now - 10 * 60_000)).rejects.toMatchObject({ type: "INVALID_TIMESTAMP" });
    await expect(send("differenced", now + 10 * 60_000)).rejects.toMatchObject({ type: "INVALID_TIMESTAMP" });
    await send("differenced", now);
    // LogAppendTime: any producer time is fine; the stored batch carries the append time instead.
    await send("appended", now - 10 * 86_400_000);
    await producer.disconnect();

    const raw = await RawKafka.login(worker.kafka!, key);
    const bounded = await raw.call(ApiKey.Fetch, 11, fetchBody("bounded", 0, 0));
    expect(bounded.responses[0]!.partitions[0]!.highWatermark).toBe(1n);
    const appended = await raw.call(ApiKey.Fetch, 11, fetchBody("appended", 0, 0));
    const batch = appended.responses[0]!.partitions[0]!.records!;
    // The batch header's timestamp type bit (attributes bit 3) and its max timestamp: the append's.
    expect(batch.readInt16BE(21) & 0x08).toBe(0x08);
    expect(Number(batch.readBigInt64BE(35))).toBeGreaterThanOrEqual(now);
    raw.close();
  });

  it("CreateTopics with a manual replica assignment on this cluster's brokers is accepted (one replica per partition); anything else is INVALID_REPLICA_ASSIGNMENT", async () => {
    const nodeId = worker.kafka!.nodeId;
    await admin.createTopics({
      topics: [
        {
          topic: "placed",
          replicaAssignment: [0, 1, 2].map((partition) => ({ partition, replicas: [nodeId] })),
        },
      ],
    });
    const row = await h.db.prisma.topic.findFirstOrThrow({ where: { organizationId: ORG, name: "placed" } });
    expect(row.partitionCount).toBe(3);

    const raw = await RawKafka.login(worker.kafka!, key);
    const answer = await raw.call(ApiKey.CreateTopics, 5, {
      topics: [
        creatable("elsewhere", -1, [{ partitionIndex: 0, brokerIds: [nodeId + 1000] }]),
        creatable("replicated", -1, [{ partitionIndex: 0, brokerIds: [nodeId, nodeId + 1000] }]),
        creatable("gapped", -1, [
          { partitionIndex: 0, brokerIds: [nodeId] },
          { partitionIndex: 2, brokerIds: [nodeId] },
        ]),
        creatable("both", 2, [{ partitionIndex: 0, brokerIds: [nodeId] }]),
      ],
      timeoutMs: 5000,
      validateOnly: false,
    });
    const by = Object.fromEntries(answer.topics.map((t) => [t.name, t.errorCode]));
    expect(by).toEqual({
      elsewhere: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      replicated: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      gapped: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      both: ErrorCode.INVALID_REQUEST,
    });
    expect(
      await h.db.prisma.topic.count({ where: { organizationId: ORG, name: { in: Object.keys(by) } } }),
    ).toBe(0);
    raw.close();
  });
});
