import { randomBytes } from "node:crypto";
import { PRODUCE_BYTES_METRIC, throttleMsOver } from "@lastword/api/produce-throttle";
import { decodeResponse } from "@lastword/kafka-protocol";
import { encodeRecordBatch, ManualClock } from "@lastword/logstore";
import { describe, expect, it } from "vitest";
import { RawKafka, throttleRecordingKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { useQuotaRedis } from "./quota-redis";

// The tenant's produce quota over the Kafka port: over it, records are still appended, the answer
// carries throttle_time_ms as Kafka computes it, and the connection reads nothing more for that long.

const ORG = "org_kafka_quota";
const LIMIT = 8_000;
const { quotas, redis } = useQuotaRedis("quota");
// Held still: every produce of the file counts into one quota window, so each throttle is exact.
const clock = new ManualClock();
const world = useKafkaWorld({ name: "kafka-quota", secret: "kafka-quota-secret" }, ORG, {
  topics: { metered: 1, "raw-metered": 1 },
  scopes: ["topics:read", "records:read", "records:write"],
  worker: { clock, kafka: { quotas } },
  setup: async (h) => {
    await h.db.prisma.quota.create({
      data: {
        organizationId: ORG,
        maxPartitions: 100,
        maxStoredBytes: 10n ** 12n,
        produceBytesPerSecond: LIMIT,
        requestsPerSecond: 10_000,
      },
    });
  },
});

/** The bytes counted in the tenant's current window: what REST's admission would see too. */
async function usedBytes(): Promise<number> {
  const window = Math.floor(clock.now() / 1000);
  return Number(await redis.get(`${quotas.redisPrefix}:rate:${ORG}:${PRODUCE_BYTES_METRIC}:${window}`));
}

function produceBody(topic: string, value: Buffer) {
  return {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [
      {
        name: topic,
        partitionData: [
          {
            index: 0,
            records: encodeRecordBatch([{ key: null, value }], { baseOffset: 0, appendTimeMs: 1 }),
          },
        ],
      },
    ],
  };
}

describe("produce quota over Kafka", () => {
  it("kafkajs over the quota gets throttled answers, honours them, and every record lands", async () => {
    const throttles: number[] = [];
    const kafka = throttleRecordingKafka(world.worker, world.key, "quota-test", throttles);
    const producer = kafka.producer();
    await producer.connect();
    const sends = 12;
    for (let i = 0; i < sends; i++) {
      await producer.send({
        topic: "metered",
        acks: -1,
        messages: [{ key: `k${i}`, value: randomBytes(900).toString("hex").slice(0, 900) }],
      });
    }
    await producer.disconnect();
    // 12 × ~1 KB against 8 KB a second: the first sends fit, the later ones are throttled.
    expect(await usedBytes()).toBeGreaterThan(LIMIT);
    expect(throttles.length).toBeGreaterThan(0);
    expect(throttles.every((ms) => ms > 0 && ms <= 11_000)).toBe(true);
    const admin = kafka.admin();
    await admin.connect();
    const [offsets] = await admin.fetchTopicOffsets("metered");
    await admin.disconnect();
    expect(Number(offsets!.high)).toBe(sends);
  });

  it("the throttle is Kafka's (used − quota) / quota × 1 s, and the connection answers nothing more until it passed", async () => {
    const throttled = await RawKafka.login(world.worker.kafka!, world.key);
    // Far over the quota already (the first test's bytes plus these 16 KB): a throttle of seconds.
    const frame = await throttled.request(0, 7, produceBody("raw-metered", randomBytes(16_000)), 0);
    const answer = decodeResponse(0, 7, frame).body;
    const used = await usedBytes();
    expect(answer.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    expect(answer.throttleTimeMs).toBe(throttleMsOver(used, LIMIT));
    expect(answer.throttleTimeMs).toBe(Math.min(11_000, Math.ceil(((used - LIMIT) / LIMIT) * 1000)));
    expect(answer.throttleTimeMs).toBeGreaterThan(1000);
    // The throttle is in the worker's metrics, per API, version, tenant and the quota that set it.
    const metrics = await (await fetch(`${world.worker.address}/metrics`)).text();
    const throttleSeries = new RegExp(
      `^lastword_kafka_throttle_seconds_total\\{api="Produce",version="7",tenant="${ORG}",quota="produceBytesPerSecond"\\} (\\S+)$`,
      "m",
    );
    expect(Number(throttleSeries.exec(metrics)?.[1])).toBeGreaterThanOrEqual(answer.throttleTimeMs / 1000);

    // A request pipelined on the muted connection waits, while another connection is served.
    const pending = throttled.request(3, 4, {
      topics: [{ name: "raw-metered" }],
      allowAutoTopicCreation: false,
    });
    let answered = false;
    void pending.then(() => (answered = true));
    const other = await RawKafka.login(world.worker.kafka!, world.key);
    for (let i = 0; i < 3; i++) {
      await other.request(3, 4, { topics: [{ name: "raw-metered" }], allowAutoTopicCreation: false });
    }
    expect(answered).toBe(false);
    other.close();
    // Then it is answered: muted, not dropped. The appended record is there.
    await pending;
    const offsets = await throttled.request(
      2,
      1,
      {
        replicaId: -1,
        topics: [{ name: "raw-metered", partitions: [{ partitionIndex: 0, timestamp: -1n }] }],
      },
      0,
    );
    expect(decodeResponse(2, 1, offsets).body.topics[0]!.partitions[0]!.offset).toBe(1n);
    throttled.close();
  });
});
