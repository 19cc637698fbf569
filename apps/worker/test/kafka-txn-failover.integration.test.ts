import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNamedTopic, endTxn, RawKafka, readValuesUntil } from "./kafka-client";
import { FAILOVER_LEASE_TTL_MS, useFailoverWorld } from "./kafka-world";
import { eventually } from "./test-topics";
import type { WorkerProcess } from "./worker-process";

// The transaction coordinator dies between a commit's PrepareCommit and its first marker
// (LASTWORD_FAULT_POINT=after-txn-prepare SIGKILLs the process there): the next worker takes the
// transactional id over and completes the commit — the offsets land in the group — and a second
// transaction left Ongoing on the dead worker stays open there for its producer to commit.

const ORG = "org_txn_failover";
const TOPIC = "tf";
const OUT = "tf-out";
const OUT_PARTITIONS = 4;
const { harness, key } = useFailoverWorld("kafka-txn-failover", ORG);
let doomed: WorkerProcess;
let survivor: WorkerProcess;
const later: WorkerProcess[] = [];

beforeAll(async () => {
  await createNamedTopic(harness.db.prisma, ORG, TOPIC, 1);
  await createNamedTopic(harness.db.prisma, ORG, OUT, OUT_PARTITIONS, { "cleanup.policy": "compact" });
  const env = { WORKER_SCHEDULING: "off", WORKER_KAFKA_PORT: "0" };
  doomed = await harness.spawnWorker("txf-doomed", {
    leaseTtlMs: FAILOVER_LEASE_TTL_MS,
    env: { ...env, LASTWORD_FAULT_POINT: "after-txn-prepare" },
  });
  survivor = await harness.spawnWorker("txf-survivor", { leaseTtlMs: FAILOVER_LEASE_TTL_MS, env });
});

afterAll(() => {
  for (const w of [doomed, survivor, ...later]) if (w?.child.exitCode === null) w.child.kill("SIGKILL");
});

async function openTxnWithOffset(raw: RawKafka, transactionalId: string, groupId: string, offset: bigint) {
  const found = await raw.call(ApiKey.FindCoordinator, 3, { key: transactionalId, keyType: 1 });
  expect(found).toMatchObject({ errorCode: 0, nodeId: doomed.kafka.nodeId });
  const init = await raw.call(ApiKey.InitProducerId, 4, {
    transactionalId,
    transactionTimeoutMs: 600_000,
    producerId: -1n,
    producerEpoch: -1,
  });
  expect(init.errorCode).toBe(0);
  const producer = { producerId: init.producerId, producerEpoch: init.producerEpoch };
  expect(
    (await raw.call(ApiKey.AddOffsetsToTxn, 1, { transactionalId, ...producer, groupId })).errorCode,
  ).toBe(0);
  await raw.call(ApiKey.FindCoordinator, 3, { key: groupId, keyType: 0 });
  const committed = await raw.call(ApiKey.TxnOffsetCommit, 0, {
    transactionalId,
    groupId,
    ...producer,
    topics: [
      { name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: offset, committedMetadata: null }] },
    ],
  });
  expect(committed.topics[0]!.partitions[0]!.errorCode).toBe(0);
  return producer;
}

async function groupOffset(groupName: string): Promise<bigint | undefined> {
  const row = await harness.db.prisma.consumerGroupOffset.findFirst({
    where: { group: { name: groupName } },
  });
  return row?.offset;
}

describe("transaction coordinator failover", () => {
  it("SIGKILL after PrepareCommit: the next owner writes the markers and completes the commit; an Ongoing transaction moves with its id and commits there", async () => {
    const raw = await RawKafka.login(doomed.kafka, key);
    const ongoing = await openTxnWithOffset(raw, "txf-open", "g-open", 11n);
    const prepared = await openTxnWithOffset(raw, "txf-prepared", "g-prepared", 22n);
    const exited = new Promise((resolve) => doomed.child.once("exit", (_code, signal) => resolve(signal)));
    await expect(
      raw.call(ApiKey.EndTxn, 1, { transactionalId: "txf-prepared", ...prepared, committed: true }),
    ).rejects.toThrow(/connection closed/);
    expect(await exited).toBe("SIGKILL");
    const row = await harness.db.prisma.kafkaTransaction.findUniqueOrThrow({
      where: { organizationId_transactionalId: { organizationId: ORG, transactionalId: "txf-prepared" } },
    });
    expect(row.state).toBe("PrepareCommit");
    expect(await groupOffset("g-prepared")).toBeUndefined();

    const completed = await eventually("the survivor completes the prepared commit", 30_000, async () => {
      const now = await harness.db.prisma.kafkaTransaction.findUniqueOrThrow({
        where: { organizationId_transactionalId: { organizationId: ORG, transactionalId: "txf-prepared" } },
      });
      return now.state === "CompleteCommit" ? now : undefined;
    });
    expect(completed.ownerWorkerId).toBe("txf-survivor");
    expect(completed.epoch).toBeGreaterThan(row.epoch);
    expect(await groupOffset("g-prepared")).toBe(22n);

    // The open one was adopted too (it has work) but not aborted: its timeout is far off.
    const other = await RawKafka.login(survivor.kafka, key);
    try {
      const found = await eventually(
        "the open transaction's coordinator is the survivor",
        30_000,
        async () => {
          const answer = await other.call(ApiKey.FindCoordinator, 3, { key: "txf-open", keyType: 1 });
          return answer.errorCode === 0 && answer.nodeId === survivor.kafka.nodeId ? answer : undefined;
        },
      );
      expect(found.port).toBe(survivor.kafka.port);
      expect(await endTxn(other, 1, "txf-open", ongoing, true)).toBe(0);
      expect(await groupOffset("g-open")).toBe(11n);
      // The dead instance's epoch is stale everywhere now that a fresh one initialised.
      const init = await other.call(ApiKey.InitProducerId, 4, {
        transactionalId: "txf-open",
        transactionTimeoutMs: 60_000,
        producerId: -1n,
        producerEpoch: -1,
      });
      expect(init.producerEpoch).toBe(ongoing.producerEpoch + 1);
      expect(await endTxn(other, 3, "txf-open", ongoing, true)).toBe(ErrorCode.PRODUCER_FENCED);
    } finally {
      other.close();
      raw.close();
    }
  });

  it("kafkajs commits a transaction over partitions of both workers while its coordinator is SIGKILLed after the prepare: the commit completes on the next owner and a read_committed consumer reads every record", async () => {
    const env = { WORKER_SCHEDULING: "off", WORKER_KAFKA_PORT: "0" };
    const victim = await harness.spawnWorker("txf-doomed-2", {
      leaseTtlMs: FAILOVER_LEASE_TTL_MS,
      env: { ...env, LASTWORD_FAULT_POINT: "after-txn-prepare" },
    });
    later.push(victim);
    // The victim coordinates the id (asked first) and, once it shares the partitions, owns some.
    const raw = await RawKafka.login(victim.kafka, key);
    const found = await raw.call(ApiKey.FindCoordinator, 3, { key: "txf-kafkajs", keyType: 1 });
    raw.close();
    expect(found.nodeId).toBe(victim.kafka.nodeId);
    await eventually("both workers own output partitions", 30_000, async () => {
      const rows = await harness.db.prisma.partition.findMany({ where: { topic: { name: OUT } } });
      const owners = new Set(rows.map((r) => r.ownerWorkerId));
      return owners.has("txf-doomed-2") && owners.has("txf-survivor") ? true : undefined;
    });
    const brokers = [survivor, victim].map((w) => `${w.kafka.host}:${w.kafka.port}`);
    const kafka = new Kafka({
      brokers,
      clientId: "txf-kafkajs",
      sasl: { mechanism: "plain", username: key.id, password: key.secret },
      connectionTimeout: 1_000,
      retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1_000 },
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer({
      transactionalId: "txf-kafkajs",
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const txn = await producer.transaction();
    const values = Array.from({ length: 20 }, (_, i) => `failover-${i}`);
    await txn.send({ topic: OUT, messages: values.map((v) => ({ key: v, value: v })) });
    const exited = new Promise((resolve) => victim.child.once("exit", (_code, signal) => resolve(signal)));
    // kafkajs does not resend an EndTxn whose connection closed: the client may hear the loss, but
    // the decision was durable before the coordinator died, and the next owner completes it.
    const committing = txn.commit().then(
      () => "answered",
      (error: Error) => error.name,
    );
    expect(await exited).toBe("SIGKILL");
    expect(["answered", "KafkaJSConnectionClosedError"]).toContain(await committing);
    await producer.disconnect().catch(() => undefined);
    const row = await eventually("the survivor completes the commit", 30_000, async () => {
      const now = await harness.db.prisma.kafkaTransaction.findUniqueOrThrow({
        where: { organizationId_transactionalId: { organizationId: ORG, transactionalId: "txf-kafkajs" } },
      });
      return now.state === "CompleteCommit" ? now : undefined;
    });
    expect(row.ownerWorkerId).toBe("txf-survivor");

    const reader = new Kafka({
      brokers: [brokers[0]!],
      clientId: "txf-reader",
      sasl: { mechanism: "plain", username: key.id, password: key.secret },
      logLevel: logLevel.NOTHING,
    }).consumer({ groupId: "txf-reader", readUncommitted: false, maxWaitTimeInMs: 200 });
    const read = await readValuesUntil(
      reader,
      OUT,
      "every committed record read",
      (r) => r.length >= values.length,
    );
    expect(read.sort()).toEqual([...values].sort());
  });
});
