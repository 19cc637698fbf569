import { createRequire } from "node:module";
import { crc32 } from "node:zlib";
import { partitionForKey } from "@lastword/api/partitioner";
import { ApiKey, decodeResponse, ErrorCode, encodeRequest } from "@lastword/kafka-protocol";
import { encodeRecordBatch } from "@lastword/logstore";
import { Kafka, type KafkaConfig, logLevel, type SASLOptions } from "kafkajs";
import { describe, expect, it } from "vitest";
import { ADVERTISED_APIS } from "../src/kafka/advertised-apis";
import {
  CLIENT_SCOPES,
  createKafkaKey,
  createNamedTopic,
  fetchBody,
  metricSample,
  RawKafka,
} from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { startScramPeer } from "./scram-peer";
import { eventually } from "./test-topics";

// kafkajs 2.2.4 end to end against a worker's listener (scenarios of shared/reference/kafka-protocol.md
// §5.2 that need no consumer group), plus raw frames for what a client library would not send.

const require = createRequire(import.meta.url);
type Decoder = { decode(raw: Buffer): Promise<unknown>; parse(data: unknown): Promise<FetchParsed> };
interface FetchParsed {
  responses: {
    topicName: string;
    partitions: { errorCode: number; highWatermark: string; messages: KafkaMessage[] }[];
  }[];
}
interface KafkaMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
}
const fetchV11 = require("kafkajs/src/protocol/requests/fetch/v11/response") as Decoder;

const ORG_A = "org_kafka_a";
const ORG_B = "org_kafka_b";
let keyARead: { id: string; secret: string };
let keyB: { id: string; secret: string };
/** Keys of A with one scope each, for the per-API scope checks; and one a group member needs. */
let keyATopicsOnly: { id: string; secret: string };
let keyARecordsOnly: { id: string; secret: string };
let keyAGroups: { id: string; secret: string };
let gappyIds: string[];
/** Every request the listener decoded, in order per connection (its `onRequest` hook). */
const served: { connection: number; apiKey: number; version: number }[] = [];

function client(sasl: SASLOptions, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    brokers: [world.bootstrap],
    clientId: "kafka-listener-test",
    sasl,
    connectionTimeout: 3000,
    retry: { retries: 2, initialRetryTime: 50 },
    logLevel: logLevel.NOTHING,
    ...extra,
  });
}
const plain = (key: { id: string; secret: string }): SASLOptions => ({
  mechanism: "plain",
  username: key.id,
  password: key.secret,
});

// The world's key is A's, to produce and read.
const world = useKafkaWorld({ name: "kafka", secret: "kafka-test-secret" }, ORG_A, {
  partitions: 12,
  scopes: ["topics:read", "records:read", "records:write"],
  worker: {
    kafka: {
      host: "127.0.0.1",
      port: 0,
      groups: { initialRebalanceDelayMs: 0 },
      onRequest: (request) => served.push(request),
    },
  },
  setup: async (h) => {
    await createNamedTopic(h.db.prisma, ORG_A, "orders", 3);
    await createNamedTopic(h.db.prisma, ORG_A, "users", 2, { "cleanup.policy": "compact" });
    await createNamedTopic(h.db.prisma, ORG_A, "small", 1, { "max.message.bytes": "2048" });
    // One batch per segment, so a forced pass can clean all but the newest.
    gappyIds = await createNamedTopic(h.db.prisma, ORG_A, "gappy", 1, {
      "cleanup.policy": "compact",
      "segment.bytes": "100",
      "min.cleanable.dirty.ratio": "0.01",
    });
    await createNamedTopic(h.db.prisma, ORG_A, "versions", 1);
    await createNamedTopic(h.db.prisma, ORG_A, "stamps", 1);
    await createNamedTopic(h.db.prisma, ORG_A, "bulk", 1);
    await createNamedTopic(h.db.prisma, ORG_B, "orders", 1);
    await createNamedTopic(h.db.prisma, ORG_B, "secret-b", 1);
    keyARead = await createKafkaKey(h.db.prisma, ORG_A, ["topics:read", "records:read"], { scram: false });
    keyB = await createKafkaKey(h.db.prisma, ORG_B, ["topics:read", "records:read", "records:write"]);
    keyATopicsOnly = await createKafkaKey(h.db.prisma, ORG_A, ["topics:read"], { scram: false });
    keyARecordsOnly = await createKafkaKey(h.db.prisma, ORG_A, ["records:read"], { scram: false });
    keyAGroups = await createKafkaKey(h.db.prisma, ORG_A, CLIENT_SCOPES, { scram: false });
  },
});

describe("connect and authenticate", () => {
  it("1. PLAIN with a good key: admin.connect succeeds and lists only the tenant's topics (scenarios 1, 6)", async () => {
    const admin = client(plain(world.key)).admin();
    await admin.connect();
    // Each compacted one is listed with its read-only `.latest` view.
    expect((await admin.listTopics()).sort()).toEqual([
      "bulk",
      "gappy",
      "gappy.latest",
      "orders",
      "small",
      "stamps",
      "users",
      "users.latest",
      "versions",
    ]);
    await admin.disconnect();
    const adminB = client(plain(keyB)).admin();
    await adminB.connect();
    expect((await adminB.listTopics()).sort()).toEqual(["orders", "secret-b"]);
    await adminB.disconnect();
  });

  it("1b. kafkajs's first socket sends ApiVersions v2, SaslHandshake v1, SaslAuthenticate v1; its Fetch socket starts at SaslHandshake (the versions are the seed's)", async () => {
    const from = served.length;
    const admin = client(plain(world.key)).admin();
    await admin.connect();
    const seed = served.slice(from);
    expect(seed.slice(0, 3).map((r) => [r.connection, r.apiKey, r.version])).toEqual(
      [ApiKey.ApiVersions, ApiKey.SaslHandshake, ApiKey.SaslAuthenticate].map((apiKey, i) => [
        seed[0]!.connection,
        apiKey,
        i === 0 ? 2 : 1,
      ]),
    );
    await admin.disconnect();

    const fromConsumer = served.length;
    const consumer = client(plain(keyAGroups)).consumer({
      groupId: "scenario-1-fetch",
      maxWaitTimeInMs: 100,
    });
    let received = 0;
    await consumer.connect();
    await consumer.subscribe({ topic: "stamps", fromBeginning: true });
    await consumer.run({ eachMessage: async () => void received++ });
    await producerSend("stamps", [{ value: "for the fetch socket" }]);
    await eventually("the consumer fetched a record", 15_000, async () => (received > 0 ? true : undefined));
    await consumer.disconnect();
    const requests = served.slice(fromConsumer);
    const fetchSockets = new Set(requests.filter((r) => r.apiKey === ApiKey.Fetch).map((r) => r.connection));
    expect(fetchSockets.size).toBeGreaterThan(0);
    for (const connection of fetchSockets) {
      const onSocket = requests.filter((r) => r.connection === connection);
      expect(onSocket.slice(0, 2).map((r) => [r.apiKey, r.version])).toEqual([
        [ApiKey.SaslHandshake, 1],
        [ApiKey.SaslAuthenticate, 1],
      ]);
      expect(onSocket.some((r) => r.apiKey === ApiKey.ApiVersions)).toBe(false);
    }
  });

  it("2. a bad secret is KafkaJSSASLAuthenticationError with our message, tried once (no retry storm), and the socket is closed", async () => {
    const from = served.length;
    // The client's own retries (2 here) would each be another authentication: none may happen.
    const admin = client({ mechanism: "plain", username: world.key.id, password: "wrong" }).admin();
    await expect(admin.connect()).rejects.toMatchObject({
      name: "KafkaJSSASLAuthenticationError",
      message: expect.stringContaining("invalid API key id or secret"),
    });
    const attempts = served.slice(from).filter((r) => r.apiKey === ApiKey.SaslAuthenticate);
    expect(attempts).toHaveLength(1);
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    await raw.request(17, 1, { mechanism: "PLAIN" });
    const answer = await raw.request(36, 1, { authBytes: Buffer.from(`\0${world.key.id}\0nope`) });
    expect(answer.readInt16BE(0)).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    await raw.closedByServer();
  });

  it("3. SCRAM-SHA-256 and SCRAM-SHA-512 log in; a key without SCRAM credentials is refused over SCRAM only", async () => {
    for (const mechanism of ["scram-sha-256", "scram-sha-512"] as const) {
      const admin = client({ mechanism, username: world.key.id, password: world.key.secret }).admin();
      await admin.connect();
      expect(await admin.listTopics()).toContain("users");
      await admin.disconnect();
    }
    const scramless = client({
      mechanism: "scram-sha-256",
      username: keyARead.id,
      password: keyARead.secret,
    }).admin();
    await expect(scramless.connect()).rejects.toMatchObject({ name: "KafkaJSSASLAuthenticationError" });
    const viaPlain = client(plain(keyARead)).admin();
    await viaPlain.connect();
    await viaPlain.disconnect();
  });

  it("3b. our server-first SCRAM message is r, s, i only; the same exchange with one more attribute makes kafkajs throw", async () => {
    // Ours, as the listener sends it.
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    await raw.call(ApiKey.SaslHandshake, 1, { mechanism: "SCRAM-SHA-256" });
    const first = await raw.call(ApiKey.SaslAuthenticate, 1, {
      authBytes: Buffer.from(`n,,n=${world.key.id},r=clientnonce`),
    });
    expect(first.errorCode).toBe(0);
    expect(first.authBytes.toString()).toMatch(/^r=clientnonce[^,]+,s=[A-Za-z0-9+/=]+,i=\d+$/);
    raw.close();
    // A test-only peer running the same exchange: kafkajs logs in, until an extension is added.
    for (const extraAttribute of [undefined, "x=an-extension"]) {
      const peer = await startScramPeer({
        mechanism: "SCRAM-SHA-256",
        kafkaMechanism: "SCRAM-SHA-256",
        secret: world.key.secret,
        ...(extraAttribute && { extraAttribute }),
      });
      const admin = new Kafka({
        brokers: [`127.0.0.1:${peer.port}`],
        sasl: { mechanism: "scram-sha-256", username: world.key.id, password: world.key.secret },
        retry: { retries: 0 },
        logLevel: logLevel.NOTHING,
      }).admin();
      try {
        if (extraAttribute === undefined) {
          await admin.connect();
        } else {
          await expect(admin.connect()).rejects.toMatchObject({ name: "KafkaJSSASLAuthenticationError" });
        }
      } finally {
        await admin.disconnect();
        await peer.close();
      }
    }
  });

  it("4. a mechanism we do not enable gets UNSUPPORTED_SASL_MECHANISM with the enabled list", async () => {
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    const answer = await raw.request(17, 1, { mechanism: "OAUTHBEARER" });
    expect(answer.readInt16BE(0)).toBe(ErrorCode.UNSUPPORTED_SASL_MECHANISM);
    expect(answer.toString()).toContain("SCRAM-SHA-512");
    raw.close();
  });

  it("5. a request other than ApiVersions or SASL before authentication closes the connection", async () => {
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    const versions = await raw.request(18, 2, {});
    expect(versions.readInt16BE(0)).toBe(0);
    raw.send(Buffer.from([0, 0, 0, 12, 0, 3, 0, 1, 0, 0, 0, 9, 0, 0, 255, 255]));
    await raw.closedByServer();
  });

  it("6. an ApiVersions version we do not know is answered in the v0 layout with UNSUPPORTED_VERSION", async () => {
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    // ApiVersions v9, correlation id 5, no client id: the header is all a broker can read.
    raw.send(Buffer.from([0, 0, 0, 10, 0, 18, 0, 9, 0, 0, 0, 5, 255, 255]));
    const frame = await raw.nextFrame();
    expect(frame.readInt32BE(0)).toBe(5);
    expect(frame.readInt16BE(4)).toBe(ErrorCode.UNSUPPORTED_VERSION);
    raw.close();
  });
});

describe("metadata and offsets", () => {
  it("9. fetchTopicMetadata, fetchTopicOffsets (low = log start, high = HW) and offsets by timestamp", async () => {
    const kafka = client(plain(world.key));
    const producer = kafka.producer();
    await producer.connect();
    const before = Date.now();
    await producer.send({
      topic: "orders",
      acks: -1,
      messages: [0, 1, 2].map((i) => ({ partition: 0, value: `o${i}` })),
    });
    const admin = kafka.admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: ["orders"] });
    expect(meta.topics[0]!.partitions.map((p) => p.partitionId).sort()).toEqual([0, 1, 2]);
    expect(meta.topics[0]!.partitions.every((p) => p.leader === world.worker.kafka!.nodeId)).toBe(true);
    const offsets = await admin.fetchTopicOffsets("orders");
    const p0 = offsets.find((o) => o.partition === 0)!;
    expect([p0.low, p0.high]).toEqual(["0", "3"]);
    const byTime = await admin.fetchTopicOffsetsByTimestamp("orders", before - 1000);
    expect(byTime.find((o) => o.partition === 0)!.offset).toBe("0");
    const future = await admin.fetchTopicOffsetsByTimestamp("orders", Date.now() + 3_600_000);
    expect(future.find((o) => o.partition === 0)!.offset).toBe("3");
    await admin.disconnect();
    await producer.disconnect();
  });

  it("6b. another tenant's topic is exactly a missing one: unknown in Metadata, refused to produce", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const answer = await raw.request(3, 4, { topics: [{ name: "secret-b" }], allowAutoTopicCreation: true });
    expect(answer.includes(Buffer.from("secret-b"))).toBe(true);
    expect(answer.readInt16BE(answer.indexOf(Buffer.from("secret-b")) - 4)).toBe(
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );
    raw.close();
    const producer = client(plain(world.key), { retry: { retries: 0 } }).producer();
    await producer.connect();
    await expect(producer.send({ topic: "secret-b", messages: [{ value: "x" }] })).rejects.toThrow(
      /does not host this topic-partition/,
    );
    await producer.disconnect();
    expect(await world.h.db.prisma.topic.count({ where: { organizationId: ORG_A, name: "secret-b" } })).toBe(
      0,
    );
  });
});

describe("produce", () => {
  it("11. acks -1 to several partitions and topics in one send: contiguous base offsets per partition", async () => {
    const producer = client(plain(world.key)).producer();
    await producer.connect();
    const result = await producer.sendBatch({
      acks: -1,
      topicMessages: [
        { topic: "orders", messages: [1, 2, 3, 4].map((i) => ({ partition: 1, value: `m${i}` })) },
        { topic: "users", messages: [{ key: "u1", value: "v1" }] },
      ],
    });
    const orders = result.find((r) => r.topicName === "orders")!;
    expect(orders.errorCode).toBe(0);
    expect(orders.baseOffset).toBe("0");
    expect(orders.logStartOffset).toBe("0");
    const again = await producer.send({ topic: "orders", messages: [{ partition: 1, value: "m5" }] });
    expect(again[0]!.baseOffset).toBe("4");
    await producer.disconnect();
  });

  it("12. keys land on murmur2(key) % n as the REST path places them; headers, tombstones and empty values round-trip", async () => {
    const producer = client(plain(world.key)).producer();
    await producer.connect();
    const keys = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
    const sent = await producer.send({
      topic: "users",
      messages: [
        ...keys.map((k) => ({ key: k, value: `value-${k}`, headers: { source: "kafkajs", n: k } })),
        { key: "gone", value: null },
        { key: "empty", value: "" },
      ],
    });
    expect(sent.every((s) => s.errorCode === 0)).toBe(true);
    for (const key of [...keys, "gone", "empty"]) {
      const expected = partitionForKey(Buffer.from(key), 2);
      const messages = await fetchAll(world.key, "users", expected);
      const found = messages.filter((m) => m.key?.toString() === key);
      expect(found.length, key).toBeGreaterThan(0);
    }
    const all = [...(await fetchAll(world.key, "users", 0)), ...(await fetchAll(world.key, "users", 1))];
    const alpha = all.find((m) => m.key?.toString() === "alpha")!;
    expect(alpha.headers.source?.toString()).toBe("kafkajs");
    expect(all.find((m) => m.key?.toString() === "gone")!.value).toBeNull();
    expect(all.find((m) => m.key?.toString() === "empty")!.value).toEqual(Buffer.alloc(0));
    await producer.disconnect();
  });

  it("14. acks=0 gets no answer, and a Metadata on the same socket after it is answered at once", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const { encodeRecordBatch } = await import("@lastword/logstore");
    const batch = encodeRecordBatch([{ key: null, value: Buffer.from("fire-and-forget") }], {
      baseOffset: 0,
      appendTimeMs: Date.now(),
    });
    const meta = raw.request(0, 7, {
      transactionalId: null,
      acks: 0,
      timeoutMs: 1000,
      topicData: [{ name: "orders", partitionData: [{ index: 2, records: batch }] }],
    });
    // The next frame must be the Metadata answer: a stray produce answer would carry correlation id 3.
    const next = raw.request(3, 4, { topics: [{ name: "orders" }], allowAutoTopicCreation: false });
    const metadata = await Promise.race([meta.then(() => "produce answered"), next.then(() => "metadata")]);
    expect(metadata).toBe("metadata");
    await eventually("acks=0 record appended", 5_000, async () =>
      (await fetchAll(world.key, "orders", 2)).some((m) => m.value?.toString() === "fire-and-forget")
        ? true
        : undefined,
    );
    raw.close();
  });

  it("15. a keyless record to a compacted topic gets INVALID_RECORD (not retried), an oversized batch MESSAGE_TOO_LARGE", async () => {
    const producer = client(plain(world.key)).producer();
    await producer.connect();
    await expect(producer.send({ topic: "users", messages: [{ value: "no key" }] })).rejects.toMatchObject({
      name: "KafkaJSProtocolError",
      type: "INVALID_RECORD",
      retriable: false,
    });
    await expect(
      producer.send({ topic: "small", messages: [{ value: "x".repeat(5000) }] }),
    ).rejects.toMatchObject({ type: "MESSAGE_TOO_LARGE" });
    await producer.disconnect();
    const rows = (await fetchAll(world.key, "users", 0)).concat(await fetchAll(world.key, "users", 1));
    expect(rows.some((m) => m.value?.toString() === "no key")).toBe(false);
  });

  it("16. a missing topic (auto-create refused) fails after the retries and the producer stays usable", async () => {
    const producer = client(plain(world.key), { retry: { retries: 1, initialRetryTime: 50 } }).producer();
    await producer.connect();
    await expect(producer.send({ topic: "no-such-topic", messages: [{ value: "x" }] })).rejects.toThrow();
    const ok = await producer.send({ topic: "orders", messages: [{ partition: 0, value: "after" }] });
    expect(ok[0]!.errorCode).toBe(0);
    await producer.disconnect();
  });

  it("scopes: a read-only key is refused TOPIC_AUTHORIZATION_FAILED on its own tenant's topic", async () => {
    const producer = client(plain(keyARead), { retry: { retries: 0 } }).producer();
    await producer.connect();
    await expect(
      producer.send({ topic: "orders", messages: [{ partition: 0, value: "x" }] }),
    ).rejects.toMatchObject({
      type: "TOPIC_AUTHORIZATION_FAILED",
    });
    await producer.disconnect();
  });

  it("scopes: without records:read Fetch, without topics:read Metadata and ListOffsets, are TOPIC_AUTHORIZATION_FAILED (ListOffsets needs topics:read, as REST's offsets route)", async () => {
    const topicsOnly = await RawKafka.login(world.worker.kafka!, keyATopicsOnly);
    const fetched = await topicsOnly.call(ApiKey.Fetch, 12, fetchBody("orders", 0, 0));
    expect(fetched.responses[0]!.partitions[0]!).toMatchObject({
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      records: Buffer.alloc(0),
    });
    const listed = await topicsOnly.call(ApiKey.ListOffsets, 7, listOffsetsBody("orders", -1n));
    expect(listed.topics[0]!.partitions[0]!.errorCode).toBe(0);
    // The topic itself may be seen with topics:read.
    const seen = await topicsOnly.call(ApiKey.Metadata, 12, {
      topics: [{ name: "orders", topicId: ZERO_UUID }],
    });
    expect(seen.topics[0]!.errorCode).toBe(0);
    topicsOnly.close();
    const recordsOnly = await RawKafka.login(world.worker.kafka!, keyARecordsOnly);
    const named = await recordsOnly.call(ApiKey.Metadata, 12, {
      topics: [{ name: "orders", topicId: ZERO_UUID }],
    });
    expect(named.topics[0]).toMatchObject({
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      partitions: [],
    });
    const everything = await recordsOnly.call(ApiKey.Metadata, 12, { topics: null });
    expect(everything.topics).toEqual([]);
    const unlisted = await recordsOnly.call(ApiKey.ListOffsets, 7, listOffsetsBody("orders", -1n));
    expect(unlisted.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    // A name the key may not describe is refused whether or not it exists, as Kafka refuses it:
    // the answer tells nothing of which names exist.
    const ghost = await recordsOnly.call(ApiKey.Metadata, 12, {
      topics: [{ name: "ghost", topicId: ZERO_UUID }],
    });
    expect(ghost.topics[0]!.errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    recordsOnly.close();
  });

  it("Metadata v10+ answers each topic's stable id, and a lookup by that id finds it (v10 and v12)", async () => {
    const row = await world.h.db.prisma.topic.findFirstOrThrow({
      where: { organizationId: ORG_A, name: "orders" },
    });
    expect(row.kafkaTopicId).not.toBe(ZERO_UUID);
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    for (const version of [10, 12]) {
      const byName = await raw.call(ApiKey.Metadata, version, {
        topics: [{ name: "orders", topicId: ZERO_UUID }],
      });
      expect(byName.topics[0]).toMatchObject({ errorCode: 0, name: "orders", topicId: row.kafkaTopicId });
      const byId = await raw.call(ApiKey.Metadata, version, {
        topics: [{ name: null, topicId: row.kafkaTopicId }],
      });
      expect(byId.topics[0]).toMatchObject({ errorCode: 0, name: "orders", topicId: row.kafkaTopicId });
      expect(byId.topics[0]!.partitions.map((p) => p.partitionIndex).sort()).toEqual([0, 1, 2]);
    }
    raw.close();
  });

  it("a Produce whose batch fails its CRC gets CORRUPT_MESSAGE and appends nothing", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const end = async () =>
      (await raw.call(ApiKey.ListOffsets, 7, listOffsetsBody("orders", -1n))).topics[0]!.partitions[0]!
        .offset;
    const before = await end();
    const batch = encodeRecordBatch([{ key: null, value: Buffer.from("bit-flipped") }], {
      baseOffset: 0,
      appendTimeMs: Date.now(),
    });
    batch[batch.length - 3]! ^= 0x20;
    const answer = await raw.call(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: "orders", partitionData: [{ index: 0, records: batch }] }],
    });
    expect(answer.responses[0]!.partitionResponses[0]).toMatchObject({
      errorCode: ErrorCode.CORRUPT_MESSAGE,
      errorMessage: expect.stringMatching(/CRC/),
    });
    expect(await end()).toBe(before);
    raw.close();
    expect(
      (await fetchAll(world.key, "orders", 0)).some((m) => m.value?.toString().includes("flipped")),
    ).toBe(false);
  });

  it("ListOffsets by timestamp answers the first record at or after it with that record's own timestamp", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const base = (await raw.call(ApiKey.ListOffsets, 7, listOffsetsBody("stamps", -1n))).topics[0]!
      .partitions[0]!.offset;
    // Later than anything written to the topic before, so the first match is one of these.
    const t0 = Date.now() + 3_600_000;
    const batch = encodeRecordBatch(
      [t0 + 1000, t0 + 3000, t0 + 2000].map((timestamp, i) => ({
        key: null,
        value: Buffer.from(`s${i}`),
        timestamp,
      })),
      { baseOffset: 0, appendTimeMs: Date.now() },
    );
    await raw.call(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: "stamps", partitionData: [{ index: 0, records: batch }] }],
    });
    const at = async (timestamp: number) =>
      (await raw.call(ApiKey.ListOffsets, 7, listOffsetsBody("stamps", BigInt(timestamp)))).topics[0]!
        .partitions[0]!;
    expect(await at(t0 + 1500)).toMatchObject({ offset: base + 1n, timestamp: BigInt(t0 + 3000) });
    expect(await at(t0 + 3000)).toMatchObject({ offset: base + 1n, timestamp: BigInt(t0 + 3000) });
    expect(await at(t0 + 3001)).toMatchObject({ offset: -1n, timestamp: -1n });
    // Max timestamp (-3, v7): the record holding it.
    expect(await at(-3)).toMatchObject({ offset: base + 1n, timestamp: BigInt(t0 + 3000) });
    raw.close();
  });
});

describe("backpressure", () => {
  it("a client that stops reading holds the worker to one unsent answer: later requests wait unread until it reads again", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const value = Buffer.alloc(1_000_000, 0x42);
    for (let i = 0; i < 10; i++) {
      const batch = encodeRecordBatch([{ key: null, value }], { baseOffset: 0, appendTimeMs: Date.now() });
      const answer = await raw.call(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: "bulk", partitionData: [{ index: 0, records: batch }] }],
      });
      expect(answer.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    const answerBytes = 8 << 20;
    const fetches = 4;
    raw.pauseReading();
    const from = served.length;
    const firstCorrelation = raw.nextCorrelationId;
    for (let i = 0; i < fetches; i++) {
      raw.sendRequest(ApiKey.Fetch, 11, {
        ...fetchBody("bulk", 0, 0, { partitionMaxBytes: answerBytes }),
        maxBytes: answerBytes,
      });
    }
    const pending = async () => metricSample(await workerMetrics(), "lastword_kafka_pending_response_bytes");
    const fetchesRead = () => served.slice(from).filter((r) => r.apiKey === ApiKey.Fetch).length;
    const stalled = await eventually("an answer waiting on the socket", 15_000, async () => {
      const bytes = await pending();
      return bytes > 0 ? bytes : undefined;
    });
    // One answer is at most `answerBytes` of batches: the worker holds no more than that, and it
    // has not read the requests behind it (the kernel's socket buffers took what they could).
    expect(stalled).toBeLessThanOrEqual(answerBytes + 1024);
    expect(fetchesRead()).toBeLessThan(fetches);
    raw.resumeReading();
    const correlations: number[] = [];
    for (let i = 0; i < fetches; i++) correlations.push((await raw.nextFrame()).readInt32BE(0));
    expect(correlations).toEqual(Array.from({ length: fetches }, (_, i) => firstCorrelation + i));
    expect(fetchesRead()).toBe(fetches);
    await eventually("nothing left unsent", 15_000, async () => ((await pending()) === 0 ? true : undefined));
    raw.close();
  });
});

describe("fetch", () => {
  it("29. long poll: Fetch with no data holds its answer (never early without data), ends empty at maxWait, and a produce wakes it", async () => {
    const end = (await fetchAll(world.key, "orders", 0)).length;
    const waiter = await RawKafka.login(world.worker.kafka!, world.key);
    const other = await RawKafka.login(world.worker.kafka!, world.key);
    let answered = false;
    const waiting = waiter.request(1, 11, fetchBody("orders", 0, end, { maxWaitMs: 20_000 }));
    void waiting.then(
      () => (answered = true),
      () => (answered = true),
    );
    // A whole short poll on another connection, begun after the long one: it ends empty at its own
    // max wait, and by then the long one, with no data either, has still not answered.
    const idle = await decodeFetch(
      await other.request(1, 11, fetchBody("orders", 0, end, { maxWaitMs: 300 })),
    );
    expect(idle.responses[0]!.partitions[0]!.messages).toEqual([]);
    expect(answered).toBe(false);
    const producer = client(plain(world.key)).producer();
    await producer.connect();
    await producer.send({ topic: "orders", messages: [{ partition: 0, value: "wake" }] });
    const woken = await decodeFetch(await waiting);
    expect(woken.responses[0]!.partitions[0]!.messages.map((m) => m.value?.toString())).toEqual(["wake"]);
    await producer.disconnect();
    waiter.close();
    other.close();
  });

  it("30. a batch larger than the partition's max bytes is still delivered whole", async () => {
    const producer = client(plain(world.key)).producer();
    await producer.connect();
    const sent = await producer.send({
      topic: "orders",
      messages: Array.from({ length: 20 }, (_, i) => ({ partition: 2, value: `${i}`.padEnd(500, "#") })),
    });
    const baseOffset = sent[0]!.baseOffset ?? "0";
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const answer = await decodeFetch(
      await raw.request(1, 11, fetchBody("orders", 2, Number(baseOffset), { partitionMaxBytes: 100 })),
    );
    expect(answer.responses[0]!.partitions[0]!.messages.length).toBe(20);
    raw.close();
    await producer.disconnect();
  });

  it("OFFSET_OUT_OF_RANGE past the log end; an unknown partition is UNKNOWN_TOPIC_OR_PARTITION", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    // kafkajs's parse throws on a partition error, so read the codes from its decode step.
    const past = (await fetchV11.decode(
      await raw.request(1, 11, fetchBody("orders", 0, 1_000_000)),
    )) as FetchParsed;
    expect(past.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    const unknown = (await fetchV11.decode(
      await raw.request(1, 11, fetchBody("orders", 7, 0)),
    )) as FetchParsed;
    expect(unknown.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    raw.close();
  });
});

describe("compaction gaps", () => {
  it("25, 26. after a pass leaves gaps, every surviving record is read once in increasing offsets, and a fetch inside an emptied stretch gets the next record in one round trip", async () => {
    const producer = client(plain(world.key)).producer();
    await producer.connect();
    // Batch A = k0@0 + k1@1; B = k1@2; C = k2@3; D = k3@4 (the active segment): the pass keeps k0@0
    // in A (its range still ends at 1), drops nothing of B, C.
    await producer.send({
      topic: "gappy",
      messages: [
        { key: "k0", value: "a" },
        { key: "k1", value: "old" },
      ],
    });
    await producer.send({ topic: "gappy", messages: [{ key: "k1", value: "new" }] });
    await producer.send({ topic: "gappy", messages: [{ key: "k2", value: "c" }] });
    await producer.send({ topic: "gappy", messages: [{ key: "k3", value: "d" }] });
    await producer.disconnect();
    await world.h.client.requestClean({ partitionId: gappyIds[0]! });
    const all = await fetchAll(world.key, "gappy", 0);
    expect(all.map((m) => [Number(m.offset), m.key?.toString(), m.value?.toString()])).toEqual([
      [0, "k0", "a"],
      [2, "k1", "new"],
      [3, "k2", "c"],
      [4, "k3", "d"],
    ]);
    // From offset 1 with room for one batch only: batch A holds nothing at or above 1, so the
    // broker adds B; a client dropping records below its offset still moves on in one round trip.
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const answer = await decodeFetch(
      await raw.request(1, 11, fetchBody("gappy", 0, 1, { partitionMaxBytes: 1 })),
    );
    const offsets = answer.responses[0]!.partitions[0]!.messages.map((m) => Number(m.offset));
    expect(offsets.filter((o) => o >= 1)).toEqual([2]);
    raw.close();

    // 25 with a consumer group: every surviving record once, and the committed offset ends at HW.
    const consumer = client(plain(keyAGroups)).consumer({ groupId: "scenario-25", maxWaitTimeInMs: 100 });
    const received: number[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: "gappy", fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push(Number(message.offset)) });
    const admin = client(plain(keyAGroups)).admin();
    await admin.connect();
    const high = (await admin.fetchTopicOffsets("gappy"))[0]!.high;
    expect(high).toBe("5");
    await eventually("the group committed the high watermark", 15_000, async () => {
      const [committed] = await admin.fetchOffsets({ groupId: "scenario-25", topics: ["gappy"] });
      return committed?.partitions[0]?.offset === high ? true : undefined;
    });
    await consumer.disconnect();
    expect(received).toEqual([0, 2, 3, 4]);
    await admin.disconnect();
  });
});

/** A magic 1 message set of one message (Kafka 0.10's format): offset, size, CRC-32, magic, … */
function messageSetV1(value: string): Buffer {
  const body = Buffer.alloc(1 + 1 + 8 + 4 + 4 + value.length);
  body.writeInt8(1, 0);
  body.writeBigInt64BE(BigInt(Date.now()), 2);
  body.writeInt32BE(-1, 10);
  body.writeInt32BE(value.length, 14);
  body.write(value, 18);
  const message = Buffer.alloc(12 + 4 + body.length);
  message.writeInt32BE(4 + body.length, 8);
  message.writeUInt32BE(crc32(body), 12);
  body.copy(message, 16);
  return message;
}

describe("advertised versions", () => {
  it("Produce is advertised from v0 and every version v0–v9 appends a RecordBatch v2; a magic 1 message set under v0–v2 is refused per partition, nothing appended", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const versions = await raw.call(ApiKey.ApiVersions, 3, {
      clientSoftwareName: "raw-test",
      clientSoftwareVersion: "1",
    });
    const produce = versions.apiKeys.find((a) => a.apiKey === ApiKey.Produce)!;
    expect([produce.minVersion, produce.maxVersion]).toEqual([0, 9]);
    const produceAt = (version: number, records: Buffer) =>
      raw.call(ApiKey.Produce, version, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [{ name: "versions", partitionData: [{ index: 0, records }] }],
      });
    for (let version = produce.minVersion; version <= produce.maxVersion; version++) {
      const batch = encodeRecordBatch([{ key: null, value: Buffer.from(`v${version}`) }], {
        baseOffset: 0,
        appendTimeMs: Date.now(),
      });
      const answer = await produceAt(version, batch);
      expect(answer.responses[0]!.partitionResponses[0], `v${version}`).toMatchObject({
        errorCode: 0,
        baseOffset: BigInt(version),
      });
    }
    for (const version of [0, 1, 2]) {
      const refused = await produceAt(version, messageSetV1(`old-format-v${version}`));
      expect(refused.responses[0]!.partitionResponses[0]!.errorCode).toBe(
        ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
      );
    }
    // From v3 the same bytes are Kafka's INVALID_RECORD, with its message (v8+ carries one).
    const v9 = await produceAt(9, messageSetV1("old-format-v9"));
    expect(v9.responses[0]!.partitionResponses[0]).toMatchObject({
      errorCode: ErrorCode.INVALID_RECORD,
      errorMessage:
        "Produce requests with version 9 are only allowed to contain record batches with magic version 2",
    });
    expect(raw.closed).toBe(false);
    raw.close();
    const stored = await fetchAll(world.key, "versions", 0);
    expect(stored.map((m) => m.value?.toString())).toEqual(Array.from({ length: 10 }, (_, v) => `v${v}`));
  });

  it("every advertised API at every advertised version is answered on an authenticated connection, never closed", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const sasl = new Set<number>([ApiKey.SaslHandshake, ApiKey.SaslAuthenticate]);
    let correlationId = 1_000;
    for (const api of ADVERTISED_APIS.filter((a) => !sasl.has(a.apiKey))) {
      for (let version = api.minVersion; version <= api.maxVersion; version++) {
        // Every field at its default (empty lists, empty names), but an answer asked for.
        const body = api.apiKey === ApiKey.Produce ? { acks: -1 } : {};
        raw.send(
          encodeRequest(api.apiKey as ApiKey, version, { correlationId: ++correlationId }, body as never),
        );
        const frame = await raw.nextFrame();
        const decoded = decodeResponse(api.apiKey as ApiKey, version, frame);
        expect(decoded.correlationId, `api ${api.apiKey} v${version}`).toBe(correlationId);
      }
    }
    expect(raw.closed).toBe(false);
    raw.close();
    // The SASL versions: SaslHandshake v0 (raw tokens), v1 with each SaslAuthenticate version.
    const handshakeV0 = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    expect((await handshakeV0.call(ApiKey.SaslHandshake, 0, { mechanism: "PLAIN" })).errorCode).toBe(0);
    const token = Buffer.from(`\0${world.key.id}\0${world.key.secret}`);
    const framed = Buffer.alloc(4 + token.length);
    framed.writeInt32BE(token.length, 0);
    token.copy(framed, 4);
    handshakeV0.send(framed);
    expect((await handshakeV0.nextFrame()).length).toBe(0);
    expect((await handshakeV0.call(ApiKey.Metadata, 9, { topics: null })).topics.length).toBeGreaterThan(0);
    handshakeV0.close();
    for (const version of [0, 1, 2]) {
      const conn = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
      expect((await conn.call(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" })).errorCode).toBe(0);
      const answer = await conn.call(ApiKey.SaslAuthenticate, version, { authBytes: token });
      expect(answer.errorCode, `SaslAuthenticate v${version}`).toBe(0);
      conn.close();
    }
  });
});

describe("robustness", () => {
  it("bad frames never crash the worker or reach the log: truncated, huge and random frames close their connection", async () => {
    const frames = [
      Buffer.from([0x7f, 0xff, 0xff, 0xff]),
      Buffer.from([0, 0, 0, 3, 0, 0, 1]),
      Buffer.from([
        0, 0, 0, 20, 0, 18, 0, 3, 0, 0, 0, 1, 255, 255, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3, 4,
      ]),
      Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 7919) % 256)),
    ];
    for (const frame of frames) {
      const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
      raw.send(frame);
      raw.send(Buffer.alloc(70_000, 1));
      await raw.closedByServer();
    }
    const admin = client(plain(world.key)).admin();
    await admin.connect();
    expect(await admin.listTopics()).toContain("orders");
    await admin.disconnect();
  });

  it("revoking a key closes its open connections", async () => {
    const key = await createKafkaKey(world.h.db.prisma, ORG_A, ["topics:read"], { scram: false });
    const raw = await RawKafka.login(world.worker.kafka!, key);
    await world.h.db.prisma.apiKey.update({ where: { id: key.id }, data: { enabled: false } });
    await raw.closedByServer();
  });
});

async function decodeFetch(payload: Buffer): Promise<FetchParsed> {
  return fetchV11.parse(await fetchV11.decode(payload));
}

/** Every record of a partition from offset 0, decoded by kafkajs's own Fetch v11 decoder. */
async function fetchAll(
  key: { id: string; secret: string },
  topic: string,
  partition: number,
): Promise<KafkaMessage[]> {
  const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
  try {
    await raw.loginPlain(key.id, key.secret);
    const out: KafkaMessage[] = [];
    let offset = 0;
    for (;;) {
      const parsed = await decodeFetch(await raw.request(1, 11, fetchBody(topic, partition, offset)));
      const p = parsed.responses[0]!.partitions[0]!;
      if (p.errorCode !== 0) throw new Error(`fetch error ${p.errorCode}`);
      const fresh = p.messages.filter((m) => Number(m.offset) >= offset);
      out.push(...fresh);
      if (fresh.length === 0) return out;
      offset = Number(fresh[fresh.length - 1]!.offset) + 1;
    }
  } finally {
    raw.close();
  }
}

const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

/** ListOffsets (v1+) for partition 0 of `topic` at `timestamp` (-1 latest, -2 earliest, -3 max). */
function listOffsetsBody(topic: string, timestamp: bigint) {
  return {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp }] }],
  };
}

async function workerMetrics(): Promise<string> {
  return (await fetch(`${world.worker.address}/metrics`)).text();
}

/** Sends `messages` to `topic` with a kafkajs producer of key A. */
async function producerSend(topic: string, messages: { value: string }[]): Promise<void> {
  const producer = client(plain(world.key)).producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
}
