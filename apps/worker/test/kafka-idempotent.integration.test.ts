import { connect } from "node:net";
import { Writable } from "node:stream";
import { ApiKey, decodeRequest, ErrorCode, FrameReader, MAX_FRAME_BYTES } from "@lastword/kafka-protocol";
import { encodeRecordBatch } from "@lastword/record-batch";
import { Kafka, type KafkaConfig, logLevel } from "kafkajs";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestFaults } from "../src/kafka/test-faults";
import type { RunningWorker } from "../src/worker";
import { createKafkaKey, createNamedTopic, RawKafka, run, topicInMetadata } from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// The idempotent producer over the Kafka port (shared/reference/kafka-protocol.md §1.4, scenario 17):
// InitProducerId from any worker, a dropped Produce answer that kafkajs and librdkafka re-send and
// get the original offsets for, Kafka's sequence and epoch errors, producer state that survives a
// cleaner pass and a partition move, and a kafkajs batch stored exactly as it was sent.

const ORG = "org_idem";
const ORG_OTHER = "org_idem_other";
const LEASE_TTL_MS = 2_000;
let h: WorkerHarness;
let w1: RunningWorker;
let w2: RunningWorker;
let key: { id: string; secret: string };
let otherKey: { id: string; secret: string };
/** What the workers logged, as parsed JSON lines (the test fault says when it dropped an answer). */
const logged: { msg?: string; workerId?: string }[] = [];

function captureLogger(workerId: string) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line) logged.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: "warn", base: { workerId } }, sink);
}

const DROPPED = "injected a test fault: a Produce answer dropped";
const drops = (workerId: string) => logged.filter((l) => l.msg === DROPPED && l.workerId === workerId).length;

const bootstrap = (w: RunningWorker) => `${w.kafka!.host}:${w.kafka!.port}`;

function kafka(extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    brokers: [bootstrap(w1)],
    clientId: "kafka-idempotent-test",
    sasl: { mechanism: "plain", username: key.id, password: key.secret },
    connectionTimeout: 3_000,
    retry: { retries: 10, initialRetryTime: 50, maxRetryTime: 500 },
    logLevel: logLevel.NOTHING,
    ...extra,
  });
}

function raw(worker: RunningWorker, login = key): Promise<RawKafka> {
  return RawKafka.login(worker.kafka!, login);
}

/** One idempotent batch as a Kafka client encodes it (base offset 0), keyed `${prefix}-${i}`. */
function batch(
  prefix: string,
  count: number,
  producer: { producerId: number; producerEpoch: number; baseSequence: number },
) {
  const records = Array.from({ length: count }, (_, i) => ({
    key: Buffer.from(`${prefix}-${i}`),
    value: Buffer.from(`value-${prefix}-${i}`),
  }));
  return Buffer.from(
    encodeRecordBatch(records, {
      baseOffset: 0,
      appendTimeMs: Date.now(),
      producer: { ...producer, partitionLeaderEpoch: 0, attributes: 0 },
    }),
  );
}

/** Produce errors a Kafka client retries after refreshing its metadata (a leader that moved). */
const RETRIED_BY_CLIENTS = new Set<number>([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.REQUEST_TIMED_OUT,
]);

async function produceRaw(conn: RawKafka, topic: string, records: Buffer) {
  const answer = await conn.call(ApiKey.Produce, 7, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5_000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
  });
  const p = answer.responses[0]!.partitionResponses[0]!;
  return { errorCode: p.errorCode, baseOffset: Number(p.baseOffset) };
}

async function logOf(partitionId: string): Promise<[number, string | null][]> {
  const { records } = await h.client.fetch({ partitionId, offset: 0, limit: 10_000 });
  return records.map((r) => [r.offset, r.key === null ? null : r.key.toString()]);
}

beforeAll(async () => {
  h = await openWorkerHarness({ name: "kafka-idem", secret: "kafka-idem-secret", ownerWaitMs: 15_000 });
  for (const id of [ORG, ORG_OTHER]) {
    await h.db.prisma.organization.create({ data: { id, name: id, slug: id, createdAt: new Date() } });
  }
  key = await createKafkaKey(h.db.prisma, ORG, ["topics:read", "records:read", "records:write"]);
  otherKey = await createKafkaKey(h.db.prisma, ORG_OTHER, ["topics:read", "records:read", "records:write"]);
  w1 = await startBroker("idem-w1");
  w2 = await startBroker("idem-w2");
});

/** `dropAnswer`: the worker's first Produce that appends goes unanswered (a test fault). */
function startBroker(id: string, options: { dropAnswer?: boolean } = {}): Promise<RunningWorker> {
  const testFaults = options.dropAnswer
    ? new TestFaults([{ api: "Produce", drop: "after-append" }])
    : undefined;
  return h.startWorker({
    workerId: id,
    kafka: { host: "127.0.0.1", port: 0, ...(testFaults && { testFaults }) },
    claimIntervalMs: 100,
    leaseTtlMs: LEASE_TTL_MS,
    logger: captureLogger(id),
  });
}

afterAll(async () => {
  await h?.close();
});

/** Creates a one-partition topic and waits until `worker` leads it (the other may claim it first). */
async function topicOn(
  name: string,
  configs: Record<string, string> = {},
): Promise<{ partitionId: string; leader: RunningWorker }> {
  const [partitionId] = await createNamedTopic(h.db.prisma, ORG, name, 1, configs);
  const owner = await eventually(`${name} hosted`, 20_000, async () => {
    const row = await h.db.prisma.partition.findUnique({ where: { id: partitionId! } });
    return row?.ownerWorkerId ?? undefined;
  });
  const leader = owner === w1.id ? w1 : w2;
  await topicInMetadata(leader, key, name);
  return { partitionId: partitionId!, leader };
}

describe("InitProducerId", () => {
  it("every worker issues ids from one sequence below 2^52; v3+ bumps the epoch; fenced, transactional and half-given ids get Kafka's errors", async () => {
    const [a, b] = [await raw(w1), await raw(w2)];
    const first = await a.call(ApiKey.InitProducerId, 1, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
    });
    const second = await b.call(ApiKey.InitProducerId, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
    });
    expect([first.errorCode, second.errorCode, first.producerEpoch, second.producerEpoch]).toEqual([
      0, 0, 0, 0,
    ]);
    expect(first.producerId).not.toBe(second.producerId);
    expect(first.producerId >= 0n && second.producerId < 2n ** 52n).toBe(true);

    const id = second.producerId;
    const bump = (conn: RawKafka, version: number, producerEpoch: number, producerId = id) =>
      conn.call(ApiKey.InitProducerId, version, {
        transactionalId: null,
        transactionTimeoutMs: 60_000,
        producerId,
        producerEpoch,
      });
    expect(await bump(a, 4, 0)).toMatchObject({ errorCode: 0, producerId: id, producerEpoch: 1 });
    // The same bump again (its answer lost): the same answer, not a second bump.
    expect(await bump(b, 4, 0)).toMatchObject({ errorCode: 0, producerId: id, producerEpoch: 1 });
    expect(await bump(a, 4, 7)).toMatchObject({ errorCode: ErrorCode.PRODUCER_FENCED, producerId: -1n });
    expect(await bump(a, 3, 7)).toMatchObject({ errorCode: ErrorCode.INVALID_PRODUCER_EPOCH });
    expect(await bump(a, 4, -1)).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    const transactional = await a.call(ApiKey.InitProducerId, 1, {
      transactionalId: "txn-1",
      transactionTimeoutMs: 60_000,
    });
    // A transactional id is its coordinator's (kafka-txn-coordinator tests): never looked up, it has none here.
    expect(transactional.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    // Another tenant naming this id gets an id of its own: it cannot bump (or fence) ours.
    const other = await raw(w1, otherKey);
    const stranger = await bump(other, 4, 1);
    expect(stranger.errorCode).toBe(0);
    expect([stranger.producerId === id, stranger.producerEpoch]).toEqual([false, 0]);
    expect(await bump(b, 4, 1)).toMatchObject({ errorCode: 0, producerId: id, producerEpoch: 2 });
    for (const conn of [a, b, other]) conn.close();
  });

  it("kafkajs sends InitProducerId to the controller Metadata names, whichever worker it bootstraps from", async () => {
    for (const seed of [w1, w2]) {
      const client = kafka({ brokers: [bootstrap(seed)] });
      const admin = client.admin();
      await admin.connect();
      const { controller, brokers } = await admin.describeCluster();
      await admin.disconnect();
      const leader = brokers.find((b) => b.nodeId === controller)!;
      const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 });
      const initTo: string[] = [];
      producer.on(producer.events.REQUEST, (e) => {
        if (e.payload.apiName === "InitProducerId") initTo.push(e.payload.broker);
      });
      await producer.connect();
      await producer.disconnect();
      expect(initTo).toEqual([`${leader.host}:${leader.port}`]);
    }
  });
});

describe("idempotent produce", () => {
  it("a sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER, an older epoch INVALID_PRODUCER_EPOCH, an id InitProducerId never issued UNKNOWN_PRODUCER_ID; nothing is appended", async () => {
    const { partitionId, leader } = await topicOn("strict");
    const conn = await raw(leader);
    const init = await conn.call(ApiKey.InitProducerId, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
    });
    const send = (
      prefix: string,
      count: number,
      producerEpoch: number,
      baseSequence: number,
      id = init.producerId,
    ) =>
      produceRaw(
        conn,
        "strict",
        batch(prefix, count, { producerId: Number(id), producerEpoch, baseSequence }),
      );
    expect(await send("a", 2, 0, 0)).toEqual({ errorCode: 0, baseOffset: 0 });
    expect((await send("gap", 1, 0, 5)).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    const bumped = await conn.call(ApiKey.InitProducerId, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
      producerId: init.producerId,
      producerEpoch: 0,
    });
    expect(bumped.producerEpoch).toBe(1);
    expect(await send("b", 1, 1, 0)).toEqual({ errorCode: 0, baseOffset: 2 });
    expect((await send("z", 1, 0, 2)).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    // An id from the REST Idempotency-Key range.
    expect((await send("r", 1, 0, 0, 2n ** 52n + 1n)).errorCode).toBe(ErrorCode.UNKNOWN_PRODUCER_ID);
    conn.close();
    expect(await logOf(partitionId)).toEqual([
      [0, "a-0"],
      [1, "a-1"],
      [2, "b-0"],
    ]);
  });

  it("producer state survives a cleaner pass and a partition move: a resend to the new leader gets the original offsets", async () => {
    // One batch per segment, so a forced pass cleans every batch but the active one.
    const { partitionId, leader } = await topicOn("moving-state", {
      "cleanup.policy": "compact",
      "segment.bytes": "100",
      "min.cleanable.dirty.ratio": "0.01",
    });
    const conn = await raw(leader);
    const init = await conn.call(ApiKey.InitProducerId, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
    });
    const producer = { producerId: Number(init.producerId), producerEpoch: 0 };
    const sent: Buffer[] = [];
    // Resends of sequence 1 (its batch removed by the pass) and 3 answer their first offsets.
    const expectDuplicates = async (on: RawKafka, batches: Buffer[], options = { retryRetriable: false }) => {
      for (const seq of [1, 3]) {
        const resend = () => produceRaw(on, "moving-state", Buffer.from(batches[seq]!));
        const resent = options.retryRetriable
          ? await eventually(`the resend of ${seq} answered`, 20_000, async () => {
              const answer = await resend();
              return RETRIED_BY_CLIENTS.has(answer.errorCode) ? undefined : answer;
            })
          : await resend();
        expect(resent).toEqual({ errorCode: 0, baseOffset: seq });
      }
    };
    for (let seq = 0; seq < 4; seq++) {
      // The same key every time, so the pass removes every older record.
      const b = batch("same", 1, { ...producer, baseSequence: seq });
      sent.push(Buffer.from(b));
      expect(await produceRaw(conn, "moving-state", b)).toEqual({ errorCode: 0, baseOffset: seq });
    }
    conn.close();
    const other = await raw(leader);
    // The pass removes the batches at 0 and 1 (superseded within the cleanable segments); 2 is
    // the newest of its key there, 3 is in the active segment, which is never cleaned.
    await h.client.requestClean({ partitionId });
    expect((await logOf(partitionId)).map(([offset]) => offset)).toEqual([2, 3]);
    // A resend of a batch the pass removed is still a duplicate: the state remembers five batches.
    await expectDuplicates(other, sent);
    other.close();

    // The leader stops; the other worker claims the partition and rebuilds the state from the
    // snapshot and the log it finds.
    const next = leader === w1 ? w2 : w1;
    await leader.stop();
    await eventually("the partition moved", 20_000, async () => {
      const row = await h.db.prisma.partition.findUnique({ where: { id: partitionId } });
      return row?.ownerWorkerId === next.id ? true : undefined;
    });
    // The new leader serves the partition once it has opened it and its Metadata names it; until
    // then a client meets a retriable refusal and retries, as these resends do (what must hold is
    // the offsets they are answered with).
    await topicInMetadata(next, key, "moving-state");
    const moved = await raw(next);
    await expectDuplicates(moved, sent, { retryRetriable: true });
    const gap = await produceRaw(moved, "moving-state", batch("same", 1, { ...producer, baseSequence: 9 }));
    expect(gap.errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(
      await produceRaw(moved, "moving-state", batch("after", 1, { ...producer, baseSequence: 4 })),
    ).toEqual({
      errorCode: 0,
      baseOffset: 4,
    });
    moved.close();
    expect((await logOf(partitionId)).map(([offset]) => offset)).toEqual([2, 3, 4]);
    if (leader === w1) w1 = await startBroker("idem-w1");
    else w2 = await startBroker("idem-w2");
  });
});

describe("dropped answers (one worker with a drop-after-append test fault)", () => {
  let wf: RunningWorker;

  beforeAll(async () => {
    await Promise.all([w1.stop(), w2.stop()]);
    wf = await startBroker("idem-fault", { dropAnswer: true });
    w1 = wf;
  });

  it("17. the first Produce answer is dropped after the append: kafkajs re-sends, gets the original offsets, and the log holds each record once", async () => {
    const { partitionId, leader } = await topicOn("ledger", { "cleanup.policy": "compact" });
    const producer = kafka({ brokers: [bootstrap(leader)] }).producer({
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const messages = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ key: `${prefix}-${i}`, value: `v-${prefix}-${i}` }));
    const [first] = await producer.send({ topic: "ledger", acks: -1, messages: messages("a", 3) });
    expect(logged.filter((l) => l.msg === DROPPED).map((l) => l.workerId)).toEqual([leader.id]);
    expect(first!.baseOffset).toBe("0");
    const [second] = await producer.send({ topic: "ledger", acks: -1, messages: messages("b", 2) });
    expect(second!.baseOffset).toBe("3");
    await producer.disconnect();
    expect(await logOf(partitionId)).toEqual([
      [0, "a-0"],
      [1, "a-1"],
      [2, "a-2"],
      [3, "b-0"],
      [4, "b-1"],
    ]);
  });

  it("a kafkajs batch is stored byte for byte as it was sent, except the base offset the log wrote into it", async () => {
    const { leader } = await topicOn("as-sent");
    const sent: Buffer[] = [];
    // The client's own socket, with every byte it writes kept: the Produce request kafkajs built.
    const socketFactory: KafkaConfig["socketFactory"] = ({ host, port, onConnect }) => {
      const socket = connect({ host, port }, onConnect);
      const write = socket.write.bind(socket) as (chunk: Buffer, ...rest: unknown[]) => boolean;
      socket.write = ((chunk: Buffer, ...rest: unknown[]) => {
        sent.push(Buffer.from(chunk));
        return write(chunk, ...rest);
      }) as typeof socket.write;
      return socket;
    };
    const producer = kafka({ brokers: [bootstrap(leader)], socketFactory }).producer({
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    await producer.send({ topic: "as-sent", acks: -1, messages: [{ key: "warm-up", value: "0" }] });
    const [answer] = await producer.send({
      topic: "as-sent",
      acks: -1,
      messages: [
        { key: "k1", value: "v1", headers: { trace: "abc", empty: "" } },
        { key: "k2", value: null },
        { key: null, value: "" },
      ],
    });
    await producer.disconnect();
    expect(answer!.baseOffset).toBe("1");
    const reader = new FrameReader({ maxFrameBytes: MAX_FRAME_BYTES });
    reader.push(Buffer.concat(sent));
    const produced: Buffer[] = [];
    for (let frame = reader.next(); frame; frame = reader.next()) {
      if (frame.readInt16BE(0) !== ApiKey.Produce) continue;
      const request = decodeRequest(frame);
      if (request.apiKey === ApiKey.Produce)
        produced.push(request.body.topicData[0]!.partitionData[0]!.records!);
    }
    // The last Produce kafkajs sent is the batch answered at offset 1.
    const mine = produced.at(-1)!;
    const conn = await raw(leader);
    const fetched = await conn.call(ApiKey.Fetch, 11, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: "as-sent",
          partitions: [
            {
              partition: 0,
              currentLeaderEpoch: -1,
              fetchOffset: 1,
              logStartOffset: -1,
              partitionMaxBytes: 1 << 20,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: "",
    });
    conn.close();
    const stored = fetched.responses[0]!.partitions[0]!.records!;
    // The first 8 bytes are the base offset (outside the CRC): 0 as sent, 1 as stored.
    expect(mine.readBigInt64BE(0)).toBe(0n);
    expect(stored.readBigInt64BE(0)).toBe(1n);
    expect(stored.length).toBe(mine.length);
    // Bytes 12–15 (partition leader epoch, also outside the CRC) are stamped by Fetch with the
    // epoch that appended the batch, as a Kafka broker's are; everything else is the client's.
    expect(stored.readInt32BE(12)).toBeGreaterThanOrEqual(1);
    expect(stored.subarray(8, 12).equals(mine.subarray(8, 12))).toBe(true);
    expect(stored.subarray(16).equals(mine.subarray(16))).toBe(true);
  });

  it("python3-confluent-kafka with enable.idempotence: its first answer is dropped, it re-sends, and the log holds each record once", async () => {
    const dropsBefore = drops(wf.id);
    // The worker restarted, so its drop is not used up yet.
    await wf.stop();
    wf = await startBroker("idem-fault", { dropAnswer: true });
    w1 = wf;
    const { partitionId, leader: fresh } = await topicOn("py-idem", { "cleanup.policy": "compact" });
    const script = `
import json, sys
from confluent_kafka import Producer
p = Producer({"bootstrap.servers": sys.argv[1], "security.protocol": "SASL_PLAINTEXT",
              "sasl.mechanisms": "PLAIN", "sasl.username": sys.argv[2], "sasl.password": sys.argv[3],
              "enable.idempotence": True, "linger.ms": 50, "partitioner": "murmur2_random"})
reports = []
def done(err, msg):
    reports.append({"err": str(err) if err else None, "offset": msg.offset()})
for i in range(20):
    p.produce("py-idem", key=f"py-{i}", value=f"v-{i}", on_delivery=done)
left = p.flush(60)
print(json.dumps({"left": left, "reports": reports}))
`;
    const { stdout } = await run("/usr/bin/python3", ["-c", script, bootstrap(fresh), key.id, key.secret], {
      timeout: 90_000,
    });
    const { left, reports } = JSON.parse(stdout) as {
      left: number;
      reports: { err: string | null; offset: number }[];
    };
    expect(left).toBe(0);
    expect(reports.every((r) => r.err === null)).toBe(true);
    expect(drops(fresh.id)).toBe(dropsBefore + 1);
    const log = await logOf(partitionId);
    expect(log.map(([, k]) => k)).toEqual(Array.from({ length: 20 }, (_, i) => `py-${i}`));
    expect(log.map(([offset]) => offset)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(reports.map((r) => r.offset).sort((x, y) => x - y)).toEqual(log.map(([offset]) => offset));
  });
});
