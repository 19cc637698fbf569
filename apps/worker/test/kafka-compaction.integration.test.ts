import { decodeResponse } from "@lastword/kafka-protocol";
import { ManualClock } from "@lastword/logstore";
import { Kafka, type KafkaMessage, logLevel } from "kafkajs";
import { describe, expect, it } from "vitest";
import { createNamedTopic, fetchBody, RawKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { eventually } from "./test-topics";
import { testScheduling } from "./worker-harness";

// Scenarios 27 and 28 of shared/reference/kafka-protocol.md §5.2 with kafkajs, against passes the
// worker's own scheduler starts: time is a ManualClock the test moves (segment.ms rolls the idle
// tail so it can be cleaned, delete.retention.ms decides when a tombstone goes).

const ORG = "org_kafka_compaction";
const SEGMENT_MS = 1_000;
const DELETE_RETENTION_MS = 5_000;
/** Base offset … record count: a v2 batch with no records is exactly its header. */
const RECORD_BATCH_HEADER_BYTES = 61;
const clock = new ManualClock();
let partitionId: string;
const world = useKafkaWorld({ name: "kafka-compaction", secret: "kafka-compaction-secret" }, ORG, {
  partitions: 1,
  worker: {
    clock,
    scheduling: testScheduling({ tickMs: 100 }),
    kafka: { groups: { initialRebalanceDelayMs: 0 } },
  },
  setup: async (h) => {
    [partitionId] = (await createNamedTopic(h.db.prisma, ORG, "tail", 1, {
      "cleanup.policy": "compact",
      "segment.ms": String(SEGMENT_MS),
      "delete.retention.ms": String(DELETE_RETENTION_MS),
      "min.cleanable.dirty.ratio": "0.01",
    })) as [string];
  },
});

function kafka(): Kafka {
  return new Kafka({
    brokers: [world.bootstrap],
    clientId: "compaction-scenarios",
    sasl: { mechanism: "plain", username: world.key.id, password: world.key.secret },
    logLevel: logLevel.NOTHING,
  });
}

async function completedPasses(): Promise<{ trigger: string | null; tombstonesRemoved: number }[]> {
  return world.h.db.prisma.cleanerRun.findMany({
    where: { partitionId, status: "completed" },
    orderBy: { startedAt: "asc" },
    select: { trigger: true, tombstonesRemoved: true },
  });
}

/** A fresh group reading the topic from the beginning; `fetches` counts its Fetch round trips. */
async function consumeFromStart(groupId: string) {
  const consumer = kafka().consumer({ groupId, maxWaitTimeInMs: 100 });
  const received: KafkaMessage[] = [];
  const state = { fetches: 0, crashed: null as Error | null };
  consumer.on(consumer.events.FETCH, () => {
    state.fetches++;
  });
  consumer.on(consumer.events.CRASH, (event) => {
    state.crashed = event.payload.error;
  });
  await consumer.connect();
  await consumer.subscribe({ topic: "tail", fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      received.push(message);
    },
  });
  return { consumer, received, state };
}

const seen = (messages: KafkaMessage[]) =>
  messages.map((m) => [Number(m.offset), m.key?.toString(), m.value?.toString() ?? null]);

describe("compaction scenarios over Kafka", () => {
  it("28 then 27: a tombstone is delivered until delete.retention.ms passes; the empty batch it leaves at the tail idles a consumer until the next append", async () => {
    const producer = kafka().producer();
    await producer.connect();
    const t0 = String(clock.now());
    await producer.send({ topic: "tail", messages: [{ key: "k1", value: "v1", timestamp: t0 }] });
    await producer.send({ topic: "tail", messages: [{ key: "k1", value: null, timestamp: t0 }] });

    // segment.ms passes: the scheduler rolls the idle tail and cleans it. k1@0 is superseded; the
    // tombstone @1 stays, stamped with pass start + delete.retention.ms.
    clock.advance(SEGMENT_MS + 1);
    await eventually("the first pass", 15_000, async () =>
      (await completedPasses()).length >= 1 ? true : undefined,
    );
    const before = await consumeFromStart("before-horizon");
    await eventually("the tombstone delivered", 15_000, async () =>
      before.received.length >= 1 ? true : undefined,
    );
    expect(seen(before.received)).toEqual([[1, "k1", null]]);
    await before.consumer.disconnect();

    // delete.retention.ms passes: the next pass drops the tombstone. Its batch ends the cleaned
    // range, so it stays as an empty batch at the tail (offset 1 is never reused).
    clock.advance(DELETE_RETENTION_MS + 1);
    const passes = await eventually("the tombstone removed", 15_000, async () => {
      const runs = await completedPasses();
      return runs.some((r) => r.tombstonesRemoved > 0) ? runs : undefined;
    });
    expect(passes.at(-1)!.trigger).toBe("delete-horizon");
    const admin = kafka().admin();
    await admin.connect();
    const [offsets] = await admin.fetchTopicOffsets("tail");
    expect(Number(offsets!.high)).toBe(2);
    // What is left at the tail is one batch header covering offset 1 with no records in it.
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const fetched = decodeResponse(1, 11, await raw.request(1, 11, fetchBody("tail", 0, 0), 0)).body;
    raw.close();
    const records = fetched.responses[0]!.partitions[0]!.records!;
    expect(records.length).toBe(RECORD_BATCH_HEADER_BYTES);
    expect(records.readBigInt64BE(0) + BigInt(records.readInt32BE(23))).toBe(1n);
    expect(records.readInt32BE(57)).toBe(0);

    // 27: only the empty batch to read. The consumer keeps fetching, gets nothing, and never crashes.
    const after = await consumeFromStart("after-horizon");
    const idleFrom = after.state.fetches;
    await eventually("several idle fetches", 15_000, async () =>
      after.state.fetches >= idleFrom + 5 ? true : undefined,
    );
    expect(after.received).toEqual([]);
    expect(after.state.crashed).toBeNull();

    // A new append after the empty batch: the consumer moves past it; the tombstone is gone for good.
    await producer.send({
      topic: "tail",
      messages: [{ key: "k2", value: "v2", timestamp: String(clock.now()) }],
    });
    await eventually("the new record consumed", 15_000, async () =>
      after.received.length >= 1 ? true : undefined,
    );
    expect(seen(after.received)).toEqual([[2, "k2", "v2"]]);
    expect(after.state.crashed).toBeNull();
    await after.consumer.disconnect();
    await admin.disconnect();
    await producer.disconnect();
  });
});
