import { readdirSync, readFileSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { ApiKey, decodeRequest, FrameReader } from "@lastword/kafka-protocol";
import { batchCompression, CODEC_IDS, readBatchHeader } from "@lastword/record-batch";
import { CompressionTypes, Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNamedTopic, kcatSasl, run } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// A compressed batch is stored as its producer sent it (Kafka's LogValidator keeps it when the
// topic's compression.type is `producer` or its codec): the bytes each client put on the wire,
// taken by a relay between it and the worker, are the bytes in the segment file but for the base
// offset; a batch in another codec than the topic's is re-encoded. The cleaner and reads still work.

const ORG = "org_kafka_as_sent";
/** The worker advertises this address; the relay listens on it and forwards to 127.0.0.1. */
const RELAY_HOST = "127.0.0.2";
let relay: Server;
const topicIds = new Map<string, string>();
const partitionIds = new Map<string, string>();
/** Every Produce batch the relay saw, by topic, in order. */
const sent = new Map<string, Buffer[]>();

/** Forwards each connection to the worker and keeps a copy of every Produce request's batches. */
function startRelay(port: number): Promise<Server> {
  const server = createServer((client) => {
    const upstream = connect(port, "127.0.0.1");
    const frames = new FrameReader();
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      frames.push(chunk);
      for (let frame = frames.next(); frame; frame = frames.next()) {
        if (frame.readInt16BE(0) !== ApiKey.Produce) continue;
        const request = decodeRequest(frame);
        if (request.apiKey !== ApiKey.Produce) continue;
        for (const t of request.body.topicData)
          for (const p of t.partitionData)
            sent.set(t.name, [...(sent.get(t.name) ?? []), Buffer.from(p.records!)]);
      }
    });
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close).on("close", close);
    upstream.on("error", close).on("close", close);
  });
  return new Promise((resolve) => server.listen(port, RELAY_HOST, () => resolve(server)));
}

const world = useKafkaWorld({ name: "kafka-as-sent", secret: "kafka-as-sent-secret" }, ORG, {
  partitions: 2,
  worker: { kafka: { advertisedHost: RELAY_HOST, groups: { initialRebalanceDelayMs: 0 } } },
  setup: async (h) => {
    // Small segments, so the first round's batches are in closed segments a pass can clean.
    for (const [name, configs] of [
      ["as-sent", { "segment.bytes": "1024" }],
      ["zstd-only", { "compression.type": "zstd" }],
    ] as const) {
      const [partitionId] = await createNamedTopic(h.db.prisma, ORG, name, 1, {
        "cleanup.policy": "compact",
        ...configs,
      });
      const partition = await h.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId! } });
      topicIds.set(name, partition.topicId);
      partitionIds.set(name, partitionId!);
    }
  },
});

beforeAll(async () => {
  relay = await startRelay(world.worker.kafka!.port);
});

afterAll(async () => {
  await new Promise((resolve) => relay?.close(resolve));
});

const bootstrap = () => `${RELAY_HOST}:${world.worker.kafka!.port}`;

/** The batches in the topic's segment files, oldest first. */
function storedBatches(topic: string): Buffer[] {
  const dir = join(world.h.dataDir, ORG, topicIds.get(topic)!, "0");
  const out: Buffer[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .sort()) {
    const bytes = readFileSync(join(dir, file));
    for (let at = 0; at < bytes.length; at += readBatchHeader(bytes, at).sizeBytes)
      out.push(bytes.subarray(at, at + readBatchHeader(bytes, at).sizeBytes));
  }
  return out;
}

/** `batch` with the base offset the log gave it: what "stored as sent" means. */
function withBaseOffset(batch: Buffer, baseOffset: number): Buffer {
  const copy = Buffer.from(batch);
  copy.writeBigInt64BE(BigInt(baseOffset), 0);
  return copy;
}

const PYTHON_PRODUCE = `
import json, sys
from confluent_kafka import Producer
bootstrap, user, password, topic, codec, rows = sys.argv[1:7]
p = Producer({"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT",
              "sasl.mechanisms": "PLAIN", "sasl.username": user, "sasl.password": password,
              "acks": "all", "compression.type": codec, "linger.ms": 50})
errors = []
def done(err, msg):
    if err: errors.append(str(err))
for k, v in json.loads(rows):
    p.produce(topic, key=k, value=v, partition=0, on_delivery=done)
p.flush(30)
print(json.dumps(errors))
`;

async function pythonProduce(topic: string, codec: string, rows: [string, string][]): Promise<void> {
  const { stdout } = await run(
    "/usr/bin/python3",
    ["-c", PYTHON_PRODUCE, bootstrap(), world.key.id, world.key.secret, topic, codec, JSON.stringify(rows)],
    { timeout: 60_000 },
  );
  expect(JSON.parse(stdout)).toEqual([]);
}

function kafka(): Kafka {
  return new Kafka({
    brokers: [bootstrap()],
    clientId: "as-sent",
    sasl: { mechanism: "plain", username: world.key.id, password: world.key.secret },
    logLevel: logLevel.NOTHING,
  });
}

const rows = (codec: string, round: number): [string, string][] =>
  Array.from({ length: 20 }, (_, i) => [
    `${codec}-${i % 10}`,
    `${codec} round ${round} value ${i} `.repeat(6).trimEnd(),
  ]);

describe("compressed batches stored as sent", () => {
  it("kafkajs gzip and librdkafka zstd, lz4 and snappy batches are in the segment byte for byte but the base offset", async () => {
    const producer = kafka().producer();
    await producer.connect();
    const messages = rows("gzip", 0).map(([k, value]) => ({ key: k, value }));
    await producer.send({ topic: "as-sent", acks: -1, compression: CompressionTypes.GZIP, messages });
    await producer.disconnect();
    for (const codec of ["zstd", "lz4", "snappy"]) await pythonProduce("as-sent", codec, rows(codec, 0));

    // librdkafka may split a producer's records over more than one batch.
    const wire = sent.get("as-sent")!;
    const codecs = wire.map((b) => batchCompression(b, 0));
    expect(codecs.filter((c, i) => c !== codecs[i - 1])).toEqual(
      (["gzip", "zstd", "lz4", "snappy"] as const).map((c) => CODEC_IDS[c]),
    );
    const stored = storedBatches("as-sent");
    expect(stored).toHaveLength(wire.length);
    let offset = 0;
    for (const [i, batch] of wire.entries()) {
      expect(stored[i]!.equals(withBaseOffset(batch, offset))).toBe(true);
      offset += readBatchHeader(batch, 0).recordCount;
    }
  });

  it("a topic whose compression.type is zstd keeps a zstd batch as sent and re-encodes an lz4 one as zstd", async () => {
    await pythonProduce("zstd-only", "zstd", rows("zstd", 0));
    await pythonProduce("zstd-only", "lz4", rows("lz4", 0));
    const wire = sent.get("zstd-only")!;
    const stored = storedBatches("zstd-only");
    expect(stored).toHaveLength(wire.length);
    expect(new Set(wire.map((b) => batchCompression(b, 0)))).toEqual(
      new Set([CODEC_IDS.zstd, CODEC_IDS.lz4]),
    );
    let offset = 0;
    for (const [i, batch] of wire.entries()) {
      if (batchCompression(batch, 0) === CODEC_IDS.zstd) {
        expect(stored[i]!.equals(withBaseOffset(batch, offset))).toBe(true);
      } else {
        expect(batchCompression(stored[i]!, 0)).toBe(CODEC_IDS.zstd);
        expect(readBatchHeader(stored[i]!, 0)).toMatchObject({
          baseOffset: offset,
          recordCount: readBatchHeader(batch, 0).recordCount,
        });
      }
      offset += readBatchHeader(batch, 0).recordCount;
    }
    expect(offset).toBe(40);
  });

  it("the cleaner compacts batches stored as sent; librdkafka reads every key's latest value back", async () => {
    for (const codec of ["zstd", "lz4", "snappy"]) await pythonProduce("as-sent", codec, rows(codec, 1));
    const producer = kafka().producer();
    await producer.connect();
    const latest = rows("gzip", 1).map(([k, value]) => ({ key: k, value }));
    await producer.send({ topic: "as-sent", acks: -1, compression: CompressionTypes.GZIP, messages: latest });
    await producer.disconnect();
    const before = storedBatches("as-sent").reduce((n, b) => n + readBatchHeader(b, 0).recordCount, 0);
    expect(before).toBe(160);
    await world.h.client.requestClean({ partitionId: partitionIds.get("as-sent")! });
    // Every key's last value was written in round 1; the pass keeps those and drops round 0.
    const after = storedBatches("as-sent").reduce((n, b) => n + readBatchHeader(b, 0).recordCount, 0);
    expect(after).toBeLessThan(before);

    const expected = new Map<string, string>();
    for (const codec of ["gzip", "zstd", "lz4", "snappy"])
      for (const [k, v] of rows(codec, 1)) expected.set(k, v);
    // librdkafka (kcat) reads the compacted log back to every key's latest value (kafkajs reads
    // compressed batches in the api package's compression test, where its codec plugins are).
    const { stdout } = await run(
      "kcat",
      [
        ...kcatSasl(bootstrap(), world.key),
        "-C",
        "-t",
        "as-sent",
        "-o",
        "beginning",
        "-e",
        "-q",
        "-f",
        "%k\t%s\n",
      ],
      { timeout: 30_000 },
    );
    const state = new Map(
      stdout
        .trim()
        .split("\n")
        .map((line) => line.split("\t") as [string, string]),
    );
    expect(state).toEqual(expected);
  });
});
