import { DEFAULT_API_KEY_SCOPES } from "@lastword/api/key-auth";
import { ManualClock } from "@lastword/logstore";
import type { Kafka, KafkaConfig } from "kafkajs";
import { describe, expect, it } from "vitest";
import { createKafkaKey, plainKafkajs, RawKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// What a key does on the Kafka listener beyond its scopes' checks: a key with the console's
// read-only default still consumes in a group (and commits its progress) but cannot produce, and
// every key's "last used" follows its Kafka requests, written at most once a minute per key.

const ORG = "org_kafka_key_use";
const clock = new ManualClock();
type Key = { id: string; secret: string };
let reader: Key;

function kafka(key: Key, extra: Partial<KafkaConfig> = {}): Kafka {
  return plainKafkajs(world.bootstrap, key, {
    clientId: "key-use-test",
    ...extra,
  });
}

async function lastUsed(keyId: string): Promise<number | null> {
  const row = await world.h.db.prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
  return row.lastRequest?.getTime() ?? null;
}

async function metadataAs(key: Key): Promise<void> {
  const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
  try {
    await raw.loginPlain(key.id, key.secret);
    await raw.request(3, 9, { topics: [{ name: "reads" }], allowAutoTopicCreation: false }, 0);
  } finally {
    raw.close();
  }
}

// The world's key writes (the group clients' scopes); `reader` has the default scopes.
const world = useKafkaWorld({ name: "kafka-key-use", secret: "kafka-key-use-secret" }, ORG, {
  topics: { reads: 1 },
  worker: { clock, kafka: { clientSightingsFlushMs: 100, groups: { initialRebalanceDelayMs: 0 } } },
  setup: async (h) => {
    process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";
    reader = await createKafkaKey(h.db.prisma, ORG, DEFAULT_API_KEY_SCOPES);
  },
});

describe("a key with the read-only default scopes", () => {
  it("consumes in a group and commits its offsets, but its produce is refused", async () => {
    const producer = kafka(world.key).producer({ allowAutoTopicCreation: false });
    await producer.connect();
    await producer.send({
      topic: "reads",
      messages: [
        { key: "k", value: "one" },
        { key: "k", value: "two" },
      ],
    });
    await producer.disconnect();

    const consumer = kafka(reader).consumer({ groupId: "readers", maxWaitTimeInMs: 100 });
    const received: string[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: "reads", fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          received.push(message.value?.toString() ?? "");
        },
      });
      await expect.poll(() => received, { timeout: 15_000 }).toEqual(["one", "two"]);
    } finally {
      await consumer.disconnect();
    }
    const admin = kafka(reader).admin();
    await admin.connect();
    try {
      expect(await admin.fetchOffsets({ groupId: "readers", topics: ["reads"] })).toEqual([
        { topic: "reads", partitions: [{ partition: 0, offset: "2", metadata: null }] },
      ]);
    } finally {
      await admin.disconnect();
    }

    const refused = kafka(reader, { retry: { retries: 0 } }).producer({ allowAutoTopicCreation: false });
    await refused.connect();
    try {
      await expect(
        refused.send({ topic: "reads", messages: [{ key: "k", value: "three" }] }),
      ).rejects.toThrow(/authoriz/i);
    } finally {
      await refused.disconnect();
    }
    const writerAdmin = kafka(world.key).admin();
    await writerAdmin.connect();
    try {
      const [end] = await writerAdmin.fetchTopicOffsets("reads");
      expect(end?.high).toBe("2");
    } finally {
      await writerAdmin.disconnect();
    }
  });
});

describe("last used", () => {
  it("follows Kafka requests, written at most once a minute per key", async () => {
    const key = await createKafkaKey(world.h.db.prisma, ORG, ["topics:read"]);
    const marker = await createKafkaKey(world.h.db.prisma, ORG, ["topics:read"]);
    expect(await lastUsed(key.id)).toBeNull();
    const first = clock.now();
    await metadataAs(key);
    await expect.poll(() => lastUsed(key.id), { timeout: 10_000 }).toBe(first);

    clock.advance(30_000);
    await metadataAs(key);
    // The marker key's first use is written by the same or a later flush than the use above.
    await metadataAs(marker);
    await expect.poll(() => lastUsed(marker.id), { timeout: 10_000 }).toBe(clock.now());
    expect(await lastUsed(key.id)).toBe(first);

    clock.advance(31_000);
    await metadataAs(key);
    await expect.poll(() => lastUsed(key.id), { timeout: 10_000 }).toBe(clock.now());
  });
});
