import { createRequire } from "node:module";
import { ConfigResourceTypes, Partitioners } from "kafkajs";
import { describe, expect, it } from "vitest";
import { partitionForKey } from "../src/index";
import { rest, str } from "./api-harness";
import { kafkaLogin, useTenantWorld, worldKafka } from "./tenant-world";

// One log behind two entry points. A record produced by kafkajs reads back over
// REST exactly as sent, and a record produced over REST reads back over Kafka Fetch exactly as
// sent, both on the partition murmur2 picks (kafkajs's DefaultPartitioner is Java's; ours is too).
// The worker is a real process; its Kafka listener is the one every worker process opens.

const require = createRequire(import.meta.url);
const PARTITIONS = 3;
const h = useTenantWorld("kafka_cross_path", {
  topics: [{ name: "profiles", partitions: PARTITIONS, configs: { "cleanup.policy": "compact" } }],
});

interface KafkajsMessage {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
}
interface KafkajsBroker {
  fetch(request: unknown): Promise<{
    responses: { partitions: { partition: number; errorCode: number; messages: KafkajsMessage[] }[] }[];
  }>;
}
interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(input: { nodeId: string }): Promise<KafkajsBroker>;
}

/**
 * Fetch as kafkajs sends it and decodes it (its Cluster, Broker and Fetch codec): a consumer would
 * need a group, which this part of the listener does not serve yet.
 */
async function kafkajsFetch(topic: string, partition: number, offset: number): Promise<KafkajsMessage[]> {
  const Cluster = require("kafkajs/src/cluster") as new (options: unknown) => KafkajsCluster;
  const { createLogger, LEVELS } = require("kafkajs/src/loggers") as {
    createLogger(o: unknown): unknown;
    LEVELS: { NOTHING: number };
  };
  const socketFactory = (require("kafkajs/src/network/socketFactory") as () => unknown)();
  const cluster = new Cluster({
    logger: createLogger({ level: LEVELS.NOTHING, logCreator: () => () => undefined }),
    socketFactory,
    ...kafkaLogin(h),
    clientId: "cross-path-test",
    connectionTimeout: 3_000,
    retry: { retries: 2, initialRetryTime: 50 },
  });
  await cluster.connect();
  try {
    await cluster.addTargetTopic(topic);
    const [nodeId] = Object.keys(cluster.findLeaderForPartitions(topic, [partition]));
    const broker = await cluster.findBroker({ nodeId: nodeId! });
    const answer = await broker.fetch({
      maxWaitTime: 100,
      topics: [{ topic, partitions: [{ partition, fetchOffset: String(offset), maxBytes: 1 << 20 }] }],
    });
    const [p] = answer.responses[0]!.partitions;
    expect(p!.errorCode).toBe(0);
    return p!.messages;
  } finally {
    await cluster.disconnect();
  }
}

describe("Kafka and REST over the same log", () => {
  it("a record kafkajs produced reads back over REST with its key, value, headers, timestamp and murmur2 partition", async () => {
    const kafka = worldKafka(h, "cross-path-test", { retry: { retries: 10, initialRetryTime: 100 } });
    const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const [sent] = await producer.send({
      topic: "profiles",
      acks: -1,
      messages: [
        {
          key: "user-7",
          value: Buffer.from([0, 1, 255]),
          headers: { trace: "t-1", origin: "kafkajs" },
          timestamp: "1700000000123",
        },
      ],
    });
    await producer.disconnect();
    expect(sent!.partition).toBe(partitionForKey(Buffer.from("user-7"), PARTITIONS));

    const read = await rest(
      h.server,
      { apiKey: h.key },
      "GET",
      `/topics/profiles/partitions/${sent!.partition}/records?offset=${sent!.baseOffset}&limit=1`,
    );
    expect(read.status).toBe(200);
    expect(read.body.records).toEqual([
      {
        offset: Number(sent!.baseOffset),
        timestamp: 1700000000123,
        key: str("user-7"),
        value: { type: "base64", data: Buffer.from([0, 1, 255]).toString("base64") },
        headers: [
          { key: "trace", value: str("t-1") },
          { key: "origin", value: str("kafkajs") },
        ],
      },
    ]);
  });

  it("a record produced over REST reads back over Kafka Fetch (kafkajs's decoder) on the partition kafkajs would pick", async () => {
    const produced = await rest(h.server, { apiKey: h.key }, "POST", "/topics/profiles/records", {
      records: [
        {
          key: str("user-9"),
          value: str("from rest"),
          headers: [{ key: "h", value: str("v") }],
          timestamp: 1700000000456,
        },
      ],
    });
    expect(produced.status).toBe(200);
    const [{ partition, offset }] = produced.body.results as [{ partition: number; offset: number }];
    const kafkajsPartition = Partitioners.DefaultPartitioner()({
      topic: "profiles",
      partitionMetadata: Array.from({ length: PARTITIONS }, (_, i) => ({
        partitionId: i,
        leader: 0,
        replicas: [0],
        isr: [0],
        partitionErrorCode: 0,
      })),
      message: { key: "user-9", value: null },
    });
    expect(partition).toBe(kafkajsPartition);

    const messages = await kafkajsFetch("profiles", partition, offset);
    const message = messages.find((m) => m.offset === String(offset));
    expect(message).toBeDefined();
    expect(message!.key).toEqual(Buffer.from("user-9"));
    expect(message!.value).toEqual(Buffer.from("from rest"));
    expect(message!.headers).toEqual({ h: Buffer.from("v") });
    expect(message!.timestamp).toBe("1700000000456");
  });

  it("a topic kafkajs created is the same topic over REST, configs included, and a REST change shows in describeConfigs", async () => {
    const kafka = worldKafka(h, "cross-path-admin");
    const admin = kafka.admin();
    await admin.connect();
    try {
      const created = await admin.createTopics({
        topics: [
          {
            topic: "kafka-made",
            numPartitions: 2,
            configEntries: [
              { name: "cleanup.policy", value: "compact" },
              { name: "delete.retention.ms", value: "3600000" },
            ],
          },
        ],
        waitForLeaders: true,
      });
      expect(created).toBe(true);
      const got = await rest(h.server, { apiKey: h.key }, "GET", "/topics/kafka-made");
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({
        name: "kafka-made",
        partitions: 2,
        cleanupPolicy: "compact",
        configs: { "cleanup.policy": "compact", "delete.retention.ms": "3600000" },
      });

      const altered = await rest(h.server, { apiKey: h.key }, "PATCH", "/topics/kafka-made/configs", {
        set: { "min.compaction.lag.ms": 60_000 },
      });
      expect(altered.status).toBe(200);
      const { resources } = await admin.describeConfigs({
        resources: [{ type: ConfigResourceTypes.TOPIC, name: "kafka-made" }],
        includeSynonyms: false,
      });
      const overKafka = resources[0]!.configEntries.map((e) => ({
        name: e.configName,
        value: e.configValue,
        source: e.configSource === 1 ? "set" : "default",
      }));
      const fresh = await rest(h.server, { apiKey: h.key }, "GET", "/topics/kafka-made");
      const overRest = (fresh.body.configEntries as { name: string; value: string; source: string }[]).map(
        ({ name, value, source }) => ({ name, value, source }),
      );
      expect(overKafka).toEqual(overRest);
      expect(overKafka).toContainEqual({ name: "min.compaction.lag.ms", value: "60000", source: "set" });
    } finally {
      await admin.disconnect();
    }
  });
});
