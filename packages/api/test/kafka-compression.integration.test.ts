import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import type { LastwordClient, StreamRecord } from "@lastword/client";
import {
  batchCompression,
  CODEC_IDS,
  compressionCodec,
  DEFAULT_MAX_INFLATED_BYTES,
  readBatchHeader,
} from "@lastword/record-batch";
import "@lastword/record-batch/node-codecs";
import LZ4Codec from "@2l/kafkajs-lz4";
import { CompressionCodecs, CompressionTypes, type Kafka } from "kafkajs";
import { beforeAll, describe, expect, it } from "vitest";
import { drain, restClient } from "./api-harness";
import { useTenantWorld, worldKafka } from "./tenant-world";

// Compressed batches end to end against a real worker process: kafkajs (gzip built in, snappy by
// the kafkajs-snappy plugin, lz4 by the @2l/kafkajs-lz4 plugin on lz4-napi's prebuilt binaries, zstd
// by a codec registered here on the server's own — node:zlib's zstd — since neither kafkajs zstd
// plugin installs without a download: @kafkajs/zstd compiles cppzst with node-gyp, and
// @sensejs/kafkajs-zstd-support's zstd-napi fetches its prebuilt binary at install or compiles)
// and python3-confluent-kafka (librdkafka 2.0.2) produce with each codec; Kafka Fetch, REST reads,
// key lookup and snapshot read back; the cleaner compacts compressed batches; the topic's
// compression.type decides what is stored.

const require = createRequire(import.meta.url);
const run = promisify(execFile);
const h = useTenantWorld("kafka_compression");
let client: LastwordClient;

type Codec = "gzip" | "snappy" | "lz4" | "zstd";
const CODECS: Codec[] = ["gzip", "snappy", "lz4", "zstd"];
const KAFKAJS_TYPES: Record<Codec, CompressionTypes> = {
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};

interface KafkajsEncoder {
  buffer: Buffer;
}
CompressionCodecs[CompressionTypes.Snappy] = require("kafkajs-snappy");
CompressionCodecs[CompressionTypes.LZ4] = new LZ4Codec().codec;
/** kafkajs's zstd codec on the server's own (node:zlib's zstd): no plugin installs here, see above. */
function serverZstd() {
  const codec = compressionCodec(CODEC_IDS.zstd);
  return {
    compress: async (encoder: KafkajsEncoder) => Buffer.from(codec.compress(encoder.buffer)),
    decompress: async (buffer: Buffer) => Buffer.from(codec.decompress(buffer, DEFAULT_MAX_INFLATED_BYTES)),
  };
}
CompressionCodecs[CompressionTypes.ZSTD] = serverZstd;

function kafka(): Kafka {
  return worldKafka(h, "compression-test", { retry: { retries: 10, initialRetryTime: 100 } });
}

/** Every record of one partition read by a kafkajs consumer from offset 0 to the log end. */
async function kafkajsRead(topic: string, expected: number): Promise<Map<string, string | null>> {
  const consumer = kafka().consumer({ groupId: `read-${topic}-${expected}` });
  const seen = new Map<string, string | null>();
  let count = 0;
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.set(message.key!.toString(), message.value?.toString() ?? null);
        if (++count >= expected) done();
      },
    });
    await finished;
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

const PYTHON_PRODUCE = `
import json, sys
from confluent_kafka import Producer
bootstrap, user, password, topic, codec, rows = sys.argv[1:7]
# murmur2_random: Java's partitioner, the one the REST key lookup computes (librdkafka's default differs).
p = Producer({"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT",
              "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": user, "sasl.password": password,
              "acks": "all", "compression.type": codec, "linger.ms": 50,
              "partitioner": "murmur2_random"})
errors = []
def done(err, msg):
    if err: errors.append(str(err))
for batch in json.loads(rows):
    for k, v in batch:
        p.produce(topic, key=k, value=v, on_delivery=done)
    p.flush(30)
print(json.dumps(errors))
`;

const PYTHON_READ = `
import json, sys
from confluent_kafka import Consumer, TopicPartition
bootstrap, user, password, topic, partitions = sys.argv[1:6]
c = Consumer({"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT",
              "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": user, "sasl.password": password,
              "group.id": "compression-reader", "enable.auto.commit": False,
              "enable.partition.eof": True})
c.assign([TopicPartition(topic, p, 0) for p in range(int(partitions))])
rows, eof = [], set()
while len(eof) < int(partitions):
    m = c.poll(10)
    if m is None: raise SystemExit("no message within 10 s")
    if m.error():
        if m.error().code() == -191: eof.add(m.partition()); continue
        raise SystemExit(str(m.error()))
    rows.append([m.partition(), m.offset(), m.key().decode(), None if m.value() is None else m.value().decode()])
c.close()
print(json.dumps(rows))
`;

function pythonArgs(): string[] {
  return [`${h.worker.kafka.host}:${h.worker.kafka.port}`, h.keyId, h.key];
}

/** Produces `batches` of [key, value|null] with python3-confluent-kafka, each batch flushed. */
async function pythonProduce(
  topic: string,
  codec: Codec,
  batches: [string, string | null][][],
): Promise<void> {
  const { stdout } = await run(
    "/usr/bin/python3",
    ["-c", PYTHON_PRODUCE, ...pythonArgs(), topic, codec, JSON.stringify(batches)],
    { timeout: 60_000 },
  );
  expect(JSON.parse(stdout)).toEqual([]);
}

/** Every record of the topic read over Kafka Fetch by librdkafka: [partition, offset, key, value]. */
async function pythonRead(
  topic: string,
  partitions: number,
): Promise<[number, number, string, string | null][]> {
  const { stdout } = await run(
    "/usr/bin/python3",
    ["-c", PYTHON_READ, ...pythonArgs(), topic, String(partitions)],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout);
}

async function topicId(name: string): Promise<string> {
  return (await h.db.prisma.topic.findFirstOrThrow({ where: { name, organizationId: h.organizationId } })).id;
}

/** The codec of every batch stored for the topic (all partitions, oldest segment first). */
async function storedCodecs(name: string): Promise<number[]> {
  const dir = join(h.dataDir, h.organizationId, await topicId(name));
  const codecs: number[] = [];
  for (const partition of readdirSync(dir)) {
    for (const file of readdirSync(join(dir, partition))
      .filter((f) => f.endsWith(".log"))
      .sort()) {
      const bytes = readFileSync(join(dir, partition, file));
      for (let at = 0; at < bytes.length; at += readBatchHeader(bytes, at).sizeBytes)
        if (readBatchHeader(bytes, at).recordCount > 0) codecs.push(batchCompression(bytes, at));
    }
  }
  return codecs;
}

async function createTopic(name: string, partitions: number, configs: Record<string, string>): Promise<void> {
  await client.topics.create({ name, partitions, configs: { "cleanup.policy": "compact", ...configs } });
}

async function restRecords(topic: string, partition: number) {
  const page = await client.records.read(topic, partition, { offset: 0, limit: 1000 });
  return page.records.map((r) => [r.offset, r.key?.data, r.value?.data ?? null]);
}

function asState(records: StreamRecord[]): Map<string, string> {
  const state = new Map<string, string>();
  for (const r of records) {
    if (r.value === null) state.delete(r.key?.data as string);
    else state.set(r.key?.data as string, r.value.data as string);
  }
  return state;
}

beforeAll(() => {
  client = restClient(h.server, h.key);
});

describe("compressed batches from real clients", () => {
  it.each(CODECS)(
    "kafkajs produces %s; stored as sent; kafkajs Fetch and REST read every record back",
    async (codec) => {
      const topic = `kafkajs-${codec}`;
      await createTopic(topic, 1, {});
      const producer = kafka().producer();
      await producer.connect();
      const messages = Array.from({ length: 30 }, (_, i) => ({
        key: `k-${i}`,
        value: `${codec} value ${i} `.repeat(8),
      }));
      await producer.send({ topic, acks: -1, compression: KAFKAJS_TYPES[codec], messages });
      await producer.disconnect();
      expect(await storedCodecs(topic)).toEqual([CODEC_IDS[codec]]);
      const read = await kafkajsRead(topic, 30);
      expect(read).toEqual(new Map(messages.map((m) => [m.key, m.value])));
      expect(await restRecords(topic, 0)).toEqual(messages.map((m, i) => [i, m.key, m.value]));
    },
  );

  it.each(CODECS)(
    "python3-confluent-kafka produces %s; librdkafka Fetch and REST read every record back",
    async (codec) => {
      const topic = `python-${codec}`;
      await createTopic(topic, 1, {});
      const rows: [string, string][] = Array.from({ length: 40 }, (_, i) => [
        `p-${i}`,
        `from python ${i} `.repeat(6),
      ]);
      await pythonProduce(topic, codec, [rows]);
      const codecs = await storedCodecs(topic);
      expect(codecs.length).toBeGreaterThan(0);
      expect(codecs).toEqual(codecs.map(() => CODEC_IDS[codec]));
      expect((await pythonRead(topic, 1)).map(([, offset, k, v]) => [offset, k, v])).toEqual(
        rows.map(([k, v], i) => [i, k, v]),
      );
      expect(await restRecords(topic, 0)).toEqual(rows.map(([k, v], i) => [i, k, v]));
    },
  );

  it("the topic's compression.type decides what is stored: lz4 from a zstd producer, plain under uncompressed", async () => {
    await createTopic("to-lz4", 1, { "compression.type": "lz4" });
    await createTopic("to-plain", 1, { "compression.type": "uncompressed" });
    const producer = kafka().producer();
    await producer.connect();
    const messages = Array.from({ length: 10 }, (_, i) => ({
      key: `r-${i}`,
      value: `recompressed ${i} `.repeat(8),
    }));
    for (const topic of ["to-lz4", "to-plain"])
      await producer.send({ topic, acks: -1, compression: CompressionTypes.ZSTD, messages });
    await producer.disconnect();
    expect(await storedCodecs("to-lz4")).toEqual([CODEC_IDS.lz4]);
    expect(await storedCodecs("to-plain")).toEqual([0]);
    expect(await kafkajsRead("to-lz4", 10)).toEqual(new Map(messages.map((m) => [m.key, m.value])));
    // Editable over REST with the other configs, validated by the same rules.
    const altered = await client.topics.alterConfigs("to-plain", { set: { "compression.type": "snappy" } });
    expect(altered.changes).toEqual([{ name: "compression.type", before: "uncompressed", after: "snappy" }]);
    await expect(
      client.topics.alterConfigs("to-plain", { set: { "compression.type": "brotli" } }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client.topics.alterConfigs("to-plain", { set: { "compression.type": "brotli" } }),
    ).rejects.toThrow("compression.type must be one of producer, uncompressed, gzip, snappy, lz4, zstd");
  });
});

describe("acceptance: a zstd topic written by librdkafka, compacted, read back every way", () => {
  const TOPIC = "zstd-flags";
  const PARTITIONS = 2;
  const KEYS = 40;
  const model = new Map<string, string>();

  beforeAll(async () => {
    // Small segments, so most of the log is closed and dirty before the pass.
    await createTopic(TOPIC, PARTITIONS, { "segment.bytes": "1024", "delete.retention.ms": "0" });
    const rounds: [string, string | null][][] = [];
    for (let round = 0; round < 5; round++) {
      const batch: [string, string | null][] = [];
      for (let k = 0; k < KEYS; k++) {
        const name = `flag-${k}`;
        if (round === 3 && k % 7 === 0) {
          batch.push([name, null]);
          model.delete(name);
        } else if (round < 4 || k % 2 === 0) {
          const value = `round ${round} of ${name}: ${"on,".repeat(10)}`;
          batch.push([name, value]);
          model.set(name, value);
        }
      }
      rounds.push(batch);
    }
    await pythonProduce(TOPIC, "zstd", rounds);
    const topic = await h.db.prisma.topic.findFirstOrThrow({
      where: { name: TOPIC, organizationId: h.organizationId },
    });
    const partitions = await h.db.prisma.partition.findMany({ where: { topicId: topic.id } });
    for (const p of partitions) await h.dataPlane.requestClean({ partitionId: p.id });
  }, 120_000);

  it("the cleaner compacted the zstd batches and rewrote them as zstd", async () => {
    const codecs = await storedCodecs(TOPIC);
    expect(codecs.every((c) => c === CODEC_IDS.zstd)).toBe(true);
    const stored = (await Promise.all([0, 1].map((p) => restRecords(TOPIC, p)))).flat();
    // 5 rounds were written (180 records); the pass left far fewer, with offset gaps.
    expect(stored.length).toBeLessThan(180);
    expect(stored.length).toBeGreaterThanOrEqual(model.size);
  });

  it("Kafka Fetch (librdkafka) replays to the model", async () => {
    const state = new Map<string, string>();
    for (const [, , k, v] of await pythonRead(TOPIC, PARTITIONS)) {
      if (v === null) state.delete(k);
      else state.set(k, v);
    }
    expect(state).toEqual(model);
  });

  it("REST replay, key lookup and snapshot agree with the model", async () => {
    const { state } = await client.replayToMap(TOPIC, { via: "replay" });
    expect(new Map([...state].map(([k, v]) => [k, v.data]))).toEqual(model);
    const snapshot = await drain(await client.stream(TOPIC, { mode: "snapshot" }));
    expect(snapshot.records.every((r) => r.value !== null)).toBe(true);
    expect(asState(snapshot.records)).toEqual(model);
    for (let k = 0; k < KEYS; k++) {
      const name = `flag-${k}`;
      const found = await client.keys.get(TOPIC, name).catch((e: unknown) => e);
      if (model.has(name)) expect(found).toMatchObject({ value: { type: "string", data: model.get(name) } });
      else expect(found).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });
    }
  });
});
