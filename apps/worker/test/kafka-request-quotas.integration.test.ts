import { randomBytes } from "node:crypto";
import { throttleMsOver } from "@lastword/api/produce-throttle";
import { DEFAULT_QUOTA } from "@lastword/api/tenant-quota";
import { CODEC_IDS, encodeRecordBatch } from "@lastword/record-batch";
import type { Kafka } from "kafkajs";
import { describe, expect, it } from "vitest";
import { fetchBody, metricSample, RawKafka, throttleRecordingKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { eventually } from "./test-topics";

// Issue 27: a tenant's Kafka requests cost that tenant. Over its request-time quota (event-loop time
// on this worker, KIP-124) or its fetch quota (bytes its fetches carry), its answer carries
// throttle_time_ms and its connection reads nothing more for that long, while another tenant's
// requests are answered meanwhile.

const ORG_CALM = "org_rq_calm";
const ORG_HOG = "org_rq_hog";
const ORG_READER = "org_rq_reader";
const ORG_COUNTED = "org_rq_counted";
/** The hog's request time: 1 ms of loop a second, which any produce of a few hundred KiB exceeds. */
const HOG_MS = 1;
/** The reader's fetch quota: 30 KB a second, a tenth of what one of its fetches carries. */
const READER_BYTES = 30_000;

// The world's key is the calm tenant's.
const world = useKafkaWorld({ name: "kafka-request-quotas" }, ORG_CALM, {
  topics: { calm: 1 },
  tenants: { [ORG_HOG]: { hog: 1 }, [ORG_READER]: { bulk: 1 }, [ORG_COUNTED]: { counted: 1 } },
  keyOptions: { scram: false },
  worker: { kafka: { groups: { initialRebalanceDelayMs: 0 } } },
  setup: async (h) => {
    await h.db.prisma.quota.create({
      data: { organizationId: ORG_HOG, ...DEFAULT_QUOTA, requestTimeMsPerSecond: HOG_MS },
    });
    await h.db.prisma.quota.create({
      data: { organizationId: ORG_READER, ...DEFAULT_QUOTA, fetchBytesPerSecond: READER_BYTES },
    });
  },
});
const hogKey = () => world.tenantKeys[ORG_HOG]!;
const readerKey = () => world.tenantKeys[ORG_READER]!;
const countedKey = () => world.tenantKeys[ORG_COUNTED]!;

/** One batch of `count` records of 512 random bytes. */
function produceBody(topic: string, count: number) {
  const records = encodeRecordBatch(
    Array.from({ length: count }, (_, i) => ({ key: Buffer.from(`k${i}`), value: randomBytes(512) })),
    { baseOffset: 0, appendTimeMs: 1 },
  );
  return batchBody(topic, records);
}

/** A Produce (v8, acks=-1) of `records` to the topic's partition 0. */
function batchBody(topic: string, records: Buffer) {
  return {
    transactionalId: null,
    acks: -1,
    timeoutMs: 10_000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
  };
}

async function metrics(): Promise<string> {
  return (await fetch(`${world.worker.address}/metrics`)).text();
}

const throttledSeconds = (body: string, api: string, version: number, tenant: string, quota: string) =>
  metricSample(
    body,
    `lastword_kafka_throttle_seconds_total{api="${api}",version="${version}",tenant="${tenant}",quota="${quota}"}`,
  );

/** A kafkajs client of the calm tenant, recording every client-side throttle kafkajs reports. */
function calmKafka(throttles: number[]): Kafka {
  return throttleRecordingKafka(world.worker, world.key, "calm", throttles);
}

describe("the request-time quota (KIP-124)", () => {
  it("throttles and mutes the tenant over it, naming the quota in the metric, while another tenant's kafkajs producer is answered", async () => {
    const calmThrottles: number[] = [];
    const producer = calmKafka(calmThrottles).producer();
    await producer.connect();
    await producer.send({ topic: "calm", acks: -1, messages: [{ key: "warm", value: "up" }] });

    const hog = await RawKafka.login(world.worker.kafka!, hogKey());
    // Each produce of 1,500 records costs the loop milliseconds (decoding, CRC, the record walk, the
    // append), over 1 ms a second: the throttle is (used − 1) / 1 × 1 s, a second or more once the
    // window holds 2 ms.
    let throttleMs = 0;
    for (let i = 0; i < 20 && throttleMs < 1000; i++) {
      const answer = await hog.call(0, 8, produceBody("hog", 1500));
      expect(answer.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
      throttleMs = answer.throttleTimeMs;
    }
    expect(throttleMs).toBeGreaterThanOrEqual(1000);
    expect(throttleMs).toBeLessThanOrEqual(11_000);

    // Muted: a request the hog pipelines now is not read, while the calm tenant is served.
    let hogAnswered = false;
    const pending = hog
      .call(3, 4, { topics: [{ name: "hog" }], allowAutoTopicCreation: false })
      .then((answer) => {
        hogAnswered = true;
        return answer;
      });
    for (let i = 0; i < 3; i++) {
      await producer.send({ topic: "calm", acks: -1, messages: [{ key: `k${i}`, value: "calm" }] });
    }
    expect(hogAnswered).toBe(false);
    // Then the hog is answered: muted, not dropped.
    const metadata = await pending;
    expect(metadata.topics[0]!.errorCode).toBe(0);
    await producer.disconnect();
    hog.close();

    expect(calmThrottles).toEqual([]);
    const body = await metrics();
    expect(throttledSeconds(body, "Produce", 8, ORG_HOG, "requestTimeMsPerSecond")).toBeGreaterThanOrEqual(
      throttleMs / 1000,
    );
    expect(body).not.toMatch(new RegExp(`lastword_kafka_throttle_seconds_total\\{[^}]*tenant="${ORG_CALM}"`));
  });
});

describe("the fetch quota", () => {
  it("throttles the big fetcher by the bytes its answer carried and mutes it, while another tenant's kafkajs consumer reads", async () => {
    const reader = await RawKafka.login(world.worker.kafka!, readerKey());
    for (let i = 0; i < 3; i++) {
      const produced = await reader.call(0, 8, produceBody("bulk", 200));
      expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    const calmThrottles: number[] = [];
    const kafka = calmKafka(calmThrottles);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: "calm", messages: [{ key: "f", value: "for the consumer" }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: "calm-readers", maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: "calm", fromBeginning: true });

    // One fetch of the ~300 KB: the first the reader's tenant made, so the window holds just it.
    const answer = await reader.call(1, 11, fetchBody("bulk", 0, 0));
    const partition = answer.responses[0]!.partitions[0]!;
    expect(partition.errorCode).toBe(0);
    const sent = partition.records!.length;
    expect(sent).toBeGreaterThan(3 * 200 * 512);
    expect(answer.throttleTimeMs).toBe(throttleMsOver(sent, READER_BYTES));
    expect(answer.throttleTimeMs).toBeGreaterThanOrEqual(1000);

    let readerAnswered = false;
    const pending = reader.call(1, 11, fetchBody("bulk", 0, 3)).then(() => {
      readerAnswered = true;
    });
    // The calm tenant's consumer joins its group and reads while the reader is muted.
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.CRASH, (event) => reject(event.payload.error));
      consumer
        .run({
          eachMessage: async ({ message }) => {
            seen.push(String(message.key));
            if (String(message.key) === "f") resolve();
          },
        })
        .catch(reject);
    });
    expect(seen).toContain("f");
    expect(readerAnswered).toBe(false);
    await consumer.disconnect();
    await pending;
    reader.close();

    expect(calmThrottles).toEqual([]);
    const body = await metrics();
    expect(throttledSeconds(body, "Fetch", 11, ORG_READER, "fetchBytesPerSecond")).toBeGreaterThanOrEqual(
      answer.throttleTimeMs / 1000,
    );
  });
});

describe("what the console's overview reads of a tenant's Kafka use", () => {
  /** The tenant's counter for today (UsageCounter, written behind by the worker). */
  async function countedToday(metric: "fetchedBytes" | "kafkaProducedBytes"): Promise<number> {
    const rows = await world.h.db.prisma.usageCounter.findMany({
      where: { organizationId: ORG_COUNTED, metric },
    });
    return rows.reduce((n, r) => n + Number(r.value), 0);
  }
  const fetchedToday = () => countedToday("fetchedBytes");

  /** The tenant's open connections as the worker's last heartbeat wrote them (Worker.kafkaConnections). */
  async function heartbeatConnections(): Promise<number | undefined> {
    const row = await world.h.db.prisma.worker.findFirst({ where: { id: world.worker.id } });
    const counts = row?.kafkaConnections as Record<string, number> | null | undefined;
    return counts ? (counts[ORG_COUNTED] ?? 0) : undefined;
  }

  it("counts the bytes each Produce appended (inflated) and each Fetch answer carried into the tenant's day, and its open connections into the heartbeat", async () => {
    const first = await RawKafka.login(world.worker.kafka!, countedKey());
    const second = await RawKafka.login(world.worker.kafka!, countedKey());
    const plain = produceBody("counted", 20);
    // A gzip batch of compressible records: the produce quota charges it inflated, as the same
    // records encoded without compression, not the few bytes it took on the wire.
    const repeated = Array.from({ length: 20 }, (_, i) => ({
      key: Buffer.from(`z${i}`),
      value: Buffer.alloc(512, 97),
    }));
    const zipped = encodeRecordBatch(repeated, {
      baseOffset: 0,
      appendTimeMs: 1,
      compression: CODEC_IDS.gzip,
    });
    const inflated = encodeRecordBatch(repeated, { baseOffset: 0, appendTimeMs: 1 }).length;
    expect(zipped.length).toBeLessThan(inflated / 10);
    for (const body of [plain, batchBody("counted", zipped)]) {
      const produced = await first.call(0, 8, body);
      expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    // Written behind: the plain batch as sent, the gzip one inflated; none of it counted as REST's.
    const producedBytes = plain.topicData[0]!.partitionData[0]!.records.length + inflated;
    await eventually("the Kafka produced bytes counted", 10_000, async () =>
      (await countedToday("kafkaProducedBytes")) === producedBytes ? true : undefined,
    );
    expect(
      await world.h.db.prisma.usageCounter.count({
        where: { organizationId: ORG_COUNTED, metric: "producedBytes" },
      }),
    ).toBe(0);
    await eventually("both connections in a heartbeat", 20_000, async () =>
      (await heartbeatConnections()) === 2 ? true : undefined,
    );

    let carried = 0;
    for (const reader of [first, second]) {
      const answer = await reader.call(1, 11, fetchBody("counted", 0, 0));
      const partition = answer.responses[0]!.partitions[0]!;
      expect(partition.errorCode).toBe(0);
      carried += partition.records!.length;
    }
    expect(carried).toBeGreaterThan(2 * 20 * 512);
    // Written behind (USAGE_FLUSH_DELAY_MS): the two answers' record bytes, exactly, and nothing
    // for the produce.
    await eventually("the fetched bytes counted", 10_000, async () =>
      (await fetchedToday()) === carried ? true : undefined,
    );

    first.close();
    second.close();
    await eventually("the closed connections gone from a heartbeat", 20_000, async () =>
      (await heartbeatConnections()) === 0 ? true : undefined,
    );
    expect(await fetchedToday()).toBe(carried);
    expect(await countedToday("kafkaProducedBytes")).toBe(producedBytes);
  });
});
