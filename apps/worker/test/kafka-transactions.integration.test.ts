import { type Consumer, type Kafka, logLevel, type Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import {
  CLIENT_SCOPES,
  createKafkaKey,
  createNamedTopic,
  plainKafkajs,
  readValuesUntil,
  run,
} from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// Kafka transactions end to end with the real clients: kafkajs 2.2.4's transactional producer
// (send, sendOffsets, commit, abort) read by a `readUncommitted: false` consumer, and
// python3-confluent-kafka (librdkafka 2.0.2) init/begin/send_offsets_to_transaction/commit/abort
// read with isolation.level=read_committed. Two workers: the output topic's partitions are spread
// over both, so a commit's markers reach the partitions the coordinator does not own through the
// data plane. Committed records are read, aborted ones never; a transaction's offsets land in the
// group only with its commit.

const ORG = "org_txn_clients";
const OUT = "tx-out";
const IN = "tx-in";
const PARTITIONS = 4;
let h: WorkerHarness;
let workers: RunningWorker[] = [];
let key: { id: string; secret: string };
const consumers: Consumer[] = [];

beforeAll(async () => {
  h = await openWorkerHarness({ name: "kafka-txn-clients", ownerWaitMs: 15_000 });
  const outIds = await createNamedTopic(h.db.prisma, ORG, OUT, PARTITIONS, { "cleanup.policy": "compact" });
  await createNamedTopic(h.db.prisma, ORG, IN, 1);
  key = await createKafkaKey(h.db.prisma, ORG, CLIENT_SCOPES);
  const config = { kafka: { host: "127.0.0.1", port: 0 }, claimIntervalMs: 100 };
  workers = [await h.startWorker(config), await h.startWorker(config)];
  await eventually("both workers own output partitions", 30_000, async () => {
    const rows = await h.db.prisma.partition.findMany({ where: { id: { in: outIds } } });
    const owners = new Set(rows.map((r) => r.ownerWorkerId));
    return owners.size === 2 && !owners.has(null) ? true : undefined;
  });
});

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.disconnect().catch(() => undefined)));
  await h?.close();
});

const brokers = () => workers.map((w) => `${w.kafka!.host}:${w.kafka!.port}`);
const client = (clientId: string): Kafka =>
  plainKafkajs(brokers()[0]!, key, {
    clientId,
    brokers: brokers(),
    retry: { retries: 8, initialRetryTime: 100 },
    logLevel: logLevel.NOTHING,
  });

/** A connected kafkajs transactional producer of `transactionalId` (idempotent, one request in flight). */
async function transactionalProducer(clientId: string, transactionalId: string): Promise<Producer> {
  const producer = client(clientId).producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return producer;
}

/** Every value a read_committed kafkajs consumer reads from OUT until it has read `until`. */
async function readCommitted(groupId: string, until: (values: string[]) => boolean): Promise<string[]> {
  const consumer = client(`reader-${groupId}`).consumer({
    groupId,
    readUncommitted: false,
    maxWaitTimeInMs: 200,
  });
  consumers.push(consumer);
  return readValuesUntil(consumer, OUT, `${groupId} read what it waits for`, until);
}

async function committedOffset(groupId: string): Promise<string | undefined> {
  const admin = client(`admin-${groupId}`).admin();
  await admin.connect();
  try {
    const [topic] = await admin.fetchOffsets({ groupId, topics: [IN] });
    return topic?.partitions.find((p) => p.partition === 0)?.offset;
  } finally {
    await admin.disconnect();
  }
}

describe("Kafka transactions with real clients", () => {
  it("kafkajs: a committed transaction's records and offsets are visible, an aborted one's never", async () => {
    const producer = await transactionalProducer("kjs-txn", "kjs-txn");
    const batch = (tag: string) =>
      Array.from({ length: 8 }, (_, i) => ({ key: `${tag}-${i}`, value: `${tag}-${i}` }));

    // A transaction of the pipeline: `tag`'s batch to OUT and the group's offset `offset` of IN.
    const pipelineStep = async (tag: string, offset: string) => {
      const txn = await producer.transaction();
      await txn.send({ topic: OUT, messages: batch(tag) });
      await txn.sendOffsets({
        consumerGroupId: "kjs-pipeline",
        topics: [{ topic: IN, partitions: [{ partition: 0, offset }] }],
      });
      return txn;
    };

    await (await pipelineStep("kjs-commit1", "5")).commit();
    expect(await committedOffset("kjs-pipeline")).toBe("5");

    await (await pipelineStep("kjs-abort", "9")).abort();
    expect(await committedOffset("kjs-pipeline")).toBe("5");

    const last = await producer.transaction();
    await last.send({ topic: OUT, messages: batch("kjs-commit2") });
    await last.commit();
    await producer.disconnect();

    // The last commit's records come after the aborted ones in every partition: once all of them
    // are read, an aborted record that leaked would have been read too.
    const values = await readCommitted(
      "kjs-reader",
      (v) => v.filter((x) => x.startsWith("kjs-commit")).length >= 16,
    );
    expect(values.filter((v) => v.startsWith("kjs-abort"))).toEqual([]);
    expect(new Set(values.filter((v) => v.startsWith("kjs-commit")))).toEqual(
      new Set([...batch("kjs-commit1"), ...batch("kjs-commit2")].map((m) => m.value)),
    );
    const rows = await h.db.prisma.kafkaTransaction.findUniqueOrThrow({
      where: { organizationId_transactionalId: { organizationId: ORG, transactionalId: "kjs-txn" } },
    });
    expect(rows.state).toBe("CompleteCommit");
  });

  it("kafkajs zombie fencing: a second producer with the same transactional id fences the first, whose open transaction is aborted and never read", async () => {
    const zombie = await transactionalProducer("kjs-zombie-1", "kjs-zombie");
    const open = await zombie.transaction();
    await open.send({ topic: OUT, messages: [{ key: "zombie", value: "zombie-write" }] });

    const successor = await transactionalProducer("kjs-zombie-2", "kjs-zombie");
    const fresh = await successor.transaction();
    await fresh.send({ topic: OUT, messages: [{ key: "successor", value: "successor-write" }] });
    await fresh.commit();

    await expect(open.commit()).rejects.toThrow(/fenced|epoch/i);
    await Promise.all([zombie.disconnect(), successor.disconnect()]);

    const values = await readCommitted("kjs-zombie-reader", (v) => v.includes("successor-write"));
    expect(values.filter((v) => v.startsWith("zombie"))).toEqual([]);
  });

  it("python3-confluent-kafka (librdkafka 2.0.2): init/begin/send_offsets_to_transaction/commit and abort, read back with isolation.level=read_committed", async () => {
    const script = `
import json, sys
from confluent_kafka import Consumer, Producer, TopicPartition
conf = {"bootstrap.servers": sys.argv[1], "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanisms": "PLAIN", "sasl.username": sys.argv[2], "sasl.password": sys.argv[3]}
out, inp = sys.argv[4], sys.argv[5]
p = Producer({**conf, "transactional.id": "rk-txn", "transaction.timeout.ms": 60000})
p.init_transactions(30)
group = Consumer({**conf, "group.id": "rk-pipeline", "enable.auto.commit": False})
group.subscribe([inp])
group.poll(2)
meta = group.consumer_group_metadata()

p.begin_transaction()
for i in range(8):
    p.produce(out, key=f"rk-commit-{i}", value=f"rk-commit-{i}")
p.send_offsets_to_transaction([TopicPartition(inp, 0, 7)], meta, 30)
p.commit_transaction(30)

p.begin_transaction()
for i in range(8):
    p.produce(out, key=f"rk-abort-{i}", value=f"rk-abort-{i}")
p.send_offsets_to_transaction([TopicPartition(inp, 0, 11)], meta, 30)
p.flush(30)
p.abort_transaction(30)

p.begin_transaction()
for i in range(8):
    p.produce(out, key=f"rk-last-{i}", value=f"rk-last-{i}")
p.commit_transaction(30)
group.close()

offsets = Consumer({**conf, "group.id": "rk-pipeline"}).committed([TopicPartition(inp, 0)], 10)
reader = Consumer({**conf, "group.id": "rk-reader", "isolation.level": "read_committed",
                   "auto.offset.reset": "earliest", "enable.auto.commit": False})
reader.subscribe([out])
values, idle = [], 0
while idle < 300 and len([v for v in values if v.startswith(("rk-commit", "rk-last"))]) < 16:
    m = reader.poll(0.2)
    if m is None or m.error():
        idle += 1
        continue
    values.append(m.value().decode())
reader.close()
print(json.dumps({"offset": offsets[0].offset, "values": values}))
`;
    const { stdout } = await run(
      "/usr/bin/python3",
      ["-c", script, brokers().join(","), key.id, key.secret, OUT, IN],
      { timeout: 120_000 },
    );
    const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as { offset: number; values: string[] };
    expect(result.offset).toBe(7);
    const rk = result.values.filter((v) => v.startsWith("rk-"));
    expect(rk.filter((v) => v.startsWith("rk-abort"))).toEqual([]);
    expect(rk.filter((v) => v.startsWith("rk-commit") || v.startsWith("rk-last"))).toHaveLength(16);
  });
});
