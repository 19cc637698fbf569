import { DEFAULT_QUOTA } from "@lastword/api/tenant-quota";
import { ErrorCode } from "@lastword/kafka-protocol";
import { CODEC_IDS, encodeRecordBatch } from "@lastword/record-batch";
import { INFLATE_CHUNK_BYTES } from "@lastword/record-batch/node-codecs";
import { describe, expect, it } from "vitest";
import { createKafkaKey, createNamedTopic, metricSample, RawKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { useQuotaRedis } from "./quota-redis";

// Issue 27, point 1: a compressed batch costs its sender, not the worker's other tenants. It is
// inflated off the event loop, stopped at the tenant's bound while it inflates, refused with
// Kafka's error naming the limit, and nothing of it is written; the produce quota counts what the
// batches inflate to.

const ORG = "org_bombs";
const ORG_OTHER = "org_bombs_other";
const ORG_METERED = "org_bombs_metered";
const { quotas } = useQuotaRedis("bombs");
let otherKey: { id: string; secret: string };
let meteredKey: { id: string; secret: string };

/** `count` records of `valueBytes` zeros each: a few KiB compressed, `count × valueBytes` inflated. */
function zeros(count: number, valueBytes: number, codec = CODEC_IDS.zstd): Buffer {
  const records = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`k${i}`),
    value: Buffer.alloc(valueBytes),
    timestamp: 1,
  }));
  return encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 1, compression: codec });
}

function produce(topic: string, batches: Buffer[]) {
  return {
    transactionalId: null,
    acks: -1,
    timeoutMs: 30_000,
    topicData: [{ name: topic, partitionData: batches.map((records, index) => ({ index, records })) }],
  };
}

async function metrics(): Promise<string> {
  return (await fetch(`${world.worker.address}/metrics`)).text();
}

const inflated = async (tenant: string) =>
  metricSample(await metrics(), `lastword_kafka_inflated_bytes_total{tenant="${tenant}"}`);

async function highWatermark(raw: RawKafka, topic: string, partition: number): Promise<bigint> {
  const answer = await raw.call(2, 1, {
    replicaId: -1,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, timestamp: -1n }] }],
  });
  return answer.topics[0]!.partitions[0]!.offset;
}

let storedPartition: string;
const scopes = ["topics:read", "records:read", "records:write"] as const;

const world = useKafkaWorld({ name: "kafka-bombs" }, ORG, {
  partitions: 8,
  scopes,
  keyOptions: { scram: false },
  worker: { kafka: { quotas } },
  setup: async (h) => {
    await createNamedTopic(h.db.prisma, ORG, "bombs", 4);
    await createNamedTopic(h.db.prisma, ORG, "plain-only", 1, { "compression.type": "uncompressed" });
    await createNamedTopic(h.db.prisma, ORG_OTHER, "calm", 1);
    [storedPartition] = (await createNamedTopic(h.db.prisma, ORG, "stored", 1)) as [string];
    await createNamedTopic(h.db.prisma, ORG_METERED, "metered", 1);
    await h.db.prisma.quota.create({
      data: { organizationId: ORG_METERED, ...DEFAULT_QUOTA, produceBytesPerSecond: 1 << 20 },
    });
    otherKey = await createKafkaKey(h.db.prisma, ORG_OTHER, scopes, { scram: false });
    meteredKey = await createKafkaKey(h.db.prisma, ORG_METERED, scopes, { scram: false });
  },
});

describe("compression bombs", () => {
  it("the reported zstd bomb (900 × 64 KiB of zeros, 56 MiB inflated) is refused naming maxBatchInflatedBytes, having inflated no more than the bound and one chunk, and nothing is appended", async () => {
    const bomb = zeros(900, 64 << 10);
    expect(bomb.length).toBeLessThan(64 << 10);
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const before = await inflated(ORG);
    const answer = await raw.call(0, 8, produce("bombs", [bomb]));
    const partition = answer.responses[0]!.partitionResponses[0]!;
    expect(partition.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(partition.errorMessage).toMatch(/maxBatchInflatedBytes quota \(16777216 bytes\)/);
    const spent = (await inflated(ORG)) - before;
    expect(spent).toBeGreaterThan(DEFAULT_QUOTA.maxBatchInflatedBytes);
    expect(spent).toBeLessThanOrEqual(DEFAULT_QUOTA.maxBatchInflatedBytes + INFLATE_CHUNK_BYTES);
    expect(await highWatermark(raw, "bombs", 0)).toBe(0n);
    expect(
      metricSample(
        await metrics(),
        `lastword_kafka_refused_batches_total{tenant="${ORG}",limit="maxBatchInflatedBytes"}`,
      ),
    ).toBe(1);
    raw.close();
  });

  it("four bombs in one request are each refused, while another tenant logs in and produces", async () => {
    const bomber = await RawKafka.login(world.worker.kafka!, world.key);
    const bombs = Array.from({ length: 4 }, () => zeros(900, 64 << 10, CODEC_IDS.gzip));
    const pending = bomber.call(0, 8, produce("bombs", bombs));
    const calm = await RawKafka.login(world.worker.kafka!, otherKey);
    const calmAnswer = await calm.call(0, 8, produce("calm", [zeros(10, 100)]));
    expect(calmAnswer.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    const answer = await pending;
    expect(answer.responses[0]!.partitionResponses.map((p) => p.errorCode)).toEqual(
      Array(4).fill(ErrorCode.MESSAGE_TOO_LARGE),
    );
    for (let p = 0; p < 4; p++) expect(await highWatermark(bomber, "bombs", p)).toBe(0n);
    bomber.close();
    calm.close();
  });

  it("a compressed batch of a million tiny records into an uncompressed topic is refused by maxBatchRecords before anything is inflated", async () => {
    const records = Array.from({ length: 1_000_000 }, () => ({ key: Buffer.from("k"), value: null }));
    const batch = encodeRecordBatch(records, { baseOffset: 0, appendTimeMs: 1, compression: CODEC_IDS.zstd });
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const before = await inflated(ORG);
    const answer = await raw.call(0, 8, produce("plain-only", [batch]));
    const partition = answer.responses[0]!.partitionResponses[0]!;
    expect(partition.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(partition.errorMessage).toMatch(
      /1000000 records, more than the tenant's maxBatchRecords quota \(100000\)/,
    );
    expect(await inflated(ORG)).toBe(before);
    expect(await highWatermark(raw, "plain-only", 0)).toBe(0n);
    raw.close();
  });
});

describe("the produce quota", () => {
  it("counts what the batches inflate to: 8 MiB of zeros sent as a few KiB is throttled against 1 MiB/s", async () => {
    const batch = zeros(128, 64 << 10);
    expect(batch.length).toBeLessThan(64 << 10);
    const raw = await RawKafka.login(world.worker.kafka!, meteredKey);
    const answer = await raw.call(0, 8, produce("metered", [batch]));
    expect(answer.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    // (8 MiB − 1 MiB) / 1 MiB × 1 s, as Kafka computes a throttle.
    expect(answer.throttleTimeMs).toBeGreaterThanOrEqual(6_000);
    raw.close();
  });
});

describe("reading back what inflates", () => {
  it("a data-plane read (REST's) of stored compressed batches is bounded by the bytes it sends, not the few KiB stored", async () => {
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    // Ten batches of 8 MiB of zeros each (within the quota), ~10 KiB each as stored.
    for (let i = 0; i < 10; i++) {
      const answer = await raw.call(0, 8, produce("stored", [zeros(128, 64 << 10)]));
      expect(answer.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    raw.close();
    const read = await world.h.client.fetch({
      partitionId: storedPartition,
      offset: 0,
      limit: 1000,
      maxBytes: 1 << 20,
    });
    const sent = read.records.reduce((n, r) => n + (r.value?.length ?? 0) + (r.key?.length ?? 0), 0);
    // The first batch is served whole (at least one batch, as Kafka's fetch), and nothing more.
    expect(read.records).toHaveLength(128);
    expect(sent).toBeLessThanOrEqual((8 << 20) + (64 << 10));
    expect(read.nextOffset).toBe(128);
  });
});
