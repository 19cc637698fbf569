import { fileURLToPath } from "node:url";
import { ApiKey } from "@lastword/kafka-protocol";
import type { Kafka } from "kafkajs";
import { describe, expect, it } from "vitest";
import type { HostedLog, OpenLog } from "../src/hosting/hosted-log";
import { partitionLogOpener } from "../src/hosting/log-opener";
import { createNamedTopic, plainKafkajs, RawKafka, run, topicInMetadata } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { eventually } from "./test-topics";

// The log side of Kafka transactions read through the Kafka port: transactional batches and
// COMMIT/ABORT markers written through the log store's API (the coordinator's path is its own
// test), then read by kafkajs (readUncommitted false/true) and librdkafka (isolation.level) —
// committed records visible, aborted never, an open transaction's records only once committed, and
// ListOffsets/Fetch answering the last stable offset.

const PYTHON = "/usr/bin/python3";
const ORG = "org_read_committed";
/** Every log the worker opened, by directory: the test writes transactions through them. */
const opened = new Map<string, HostedLog>();

function capturingOpener(): OpenLog {
  const open = partitionLogOpener();
  return async (options) => {
    const log = await open(options);
    opened.set(options.dir, log);
    return log;
  };
}

const world = useKafkaWorld({ name: "kafka-read-committed" }, ORG, {
  worker: { openLog: capturingOpener() },
});

/** A one-partition compacted topic, once the worker hosts it: its log as the worker opened it. */
async function hostedTopic(name: string): Promise<{ log: HostedLog; partitionId: string }> {
  const [partitionId] = await createNamedTopic(world.h.db.prisma, ORG, name, 1, {
    "cleanup.policy": "compact",
  });
  const row = await world.h.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId! } });
  const log = await eventually(
    `${name} opened`,
    20_000,
    async () => [...opened].find(([dir]) => dir.includes(row.topicId))?.[1],
  );
  await topicInMetadata(world.worker, world.key, name);
  return { log, partitionId: partitionId! };
}

const rec = (k: string) => ({ key: Buffer.from(k), value: Buffer.from(`v-${k}`) });

function txn(log: HostedLog, producerId: number, baseSequence: number, keys: string[]) {
  return log.append(keys.map(rec), {
    producer: { producerId, producerEpoch: 0, baseSequence },
    transactional: true,
  });
}

function marker(producerId: number, commit: boolean) {
  return { producerId, producerEpoch: 0, coordinatorEpoch: 0, commit, timestampMs: Date.now() };
}

/**
 * p0 | A: a0 a1 | B: b0 | A commits | B aborts | p1 | C: c0 (open) | p2
 * read_committed sees p0 a0 a1 p1 until C commits, then c0 p2 too; b0 never.
 */
async function writeScenario(log: HostedLog) {
  await log.append([rec("p0")]); // 0
  await txn(log, 101, 0, ["a0", "a1"]); // 1, 2
  await txn(log, 102, 0, ["b0"]); // 3
  await log.appendTxnMarker(marker(101, true)); // 4
  await log.appendTxnMarker(marker(102, false)); // 5
  await log.append([rec("p1")]); // 6
  await txn(log, 103, 0, ["c0"]); // 7
  await log.append([rec("p2")]); // 8
}

/** kafkajs reads the topic from the start in a fresh group until `count` records came. */
async function kafkajsRead(client: Kafka, topic: string, readUncommitted: boolean, count: number) {
  const consumer = client.consumer({
    groupId: `rc-${topic}-${readUncommitted}-${count}`,
    readUncommitted,
    maxWaitTimeInMs: 100,
  });
  const seen: string[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(`${message.key!.toString()}@${message.offset}`);
      },
    });
    await eventually(`kafkajs read ${count} of ${topic}`, 15_000, async () =>
      seen.length >= count ? true : undefined,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; read ${JSON.stringify(seen)}`);
    });
  } finally {
    await consumer.disconnect();
  }
  return seen;
}

async function librdkafkaRead(topic: string, isolation: string, count: number): Promise<string[]> {
  const script = fileURLToPath(new URL("./librdkafka-isolation-reader.py", import.meta.url));
  const { stdout } = await run(
    PYTHON,
    [script, world.bootstrap, world.key.id, world.key.secret, topic, isolation, String(count)],
    {
      timeout: 60_000,
    },
  );
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { record?: [number, string]; error?: string })
    .map((event) =>
      event.record ? `${event.record[1].slice(2)}@${event.record[0]}` : `error ${event.error}`,
    );
}

async function listOffsets(topic: string, isolationLevel: number): Promise<number> {
  const conn = await RawKafka.login(world.worker.kafka!, world.key);
  try {
    const answer = await conn.call(ApiKey.ListOffsets, 5, {
      replicaId: -1,
      isolationLevel,
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
    });
    return Number(answer.topics[0]!.partitions[0]!.offset);
  } finally {
    conn.close();
  }
}

async function fetchMarks(topic: string, isolationLevel: number) {
  const conn = await RawKafka.login(world.worker.kafka!, world.key);
  try {
    const answer = await conn.call(ApiKey.Fetch, 11, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic,
          partitions: [
            {
              partition: 0,
              currentLeaderEpoch: -1,
              fetchOffset: 0n,
              logStartOffset: -1n,
              partitionMaxBytes: 1 << 20,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: "",
    });
    const p = answer.responses[0]!.partitions[0]!;
    return {
      errorCode: p.errorCode,
      highWatermark: Number(p.highWatermark),
      lastStableOffset: Number(p.lastStableOffset),
      aborted: (p.abortedTransactions ?? []).map((t) => [Number(t.producerId), Number(t.firstOffset)]),
    };
  } finally {
    conn.close();
  }
}

/** A data-plane stream's records (`key@offset`) and its end offset. */
// (Snapshots and key lookups serve the worker's key index, which this test's writes go around:
// its transaction rules are indexed-log.test.ts's.)
async function streamed(partitionId: string, mode: "replay" | "snapshot") {
  const keys: string[] = [];
  let end = -1;
  for await (const frame of world.h.client.streamPartition({ partitionId, mode })) {
    if (frame.kind === "records")
      for (const r of frame.records) keys.push(`${r.key!.toString()}@${r.offset}`);
    else end = frame.endOffset;
  }
  return { keys, end };
}

describe("read_committed over the Kafka port", () => {
  it("kafkajs and librdkafka see committed records only, up to the last stable offset; read_uncommitted sees all data", async () => {
    const topic = "rc-clients";
    const { log, partitionId } = await hostedTopic(topic);
    await writeScenario(log);
    const client = plainKafkajs(world.bootstrap, world.key, { clientId: "read-committed-test" });

    // Fetch and ListOffsets answer the LSO (7, where C begins) in both isolation levels' marks.
    expect(await listOffsets(topic, 1)).toBe(7);
    expect(await listOffsets(topic, 0)).toBe(9);
    expect(await fetchMarks(topic, 1)).toEqual({
      errorCode: 0,
      highWatermark: 9,
      lastStableOffset: 7,
      aborted: [[102, 3]],
    });
    expect(await fetchMarks(topic, 0)).toMatchObject({ highWatermark: 9, lastStableOffset: 7, aborted: [] });

    const committedBefore = ["p0@0", "a0@1", "a1@2", "p1@6"];
    expect(await kafkajsRead(client, topic, false, 4)).toEqual(committedBefore);
    expect(await librdkafkaRead(topic, "read_committed", 4)).toEqual(committedBefore);
    // The REST fetch and list offsets read committed too: up to the LSO, never b0 nor a marker.
    const rest = await world.h.client.fetch({ partitionId, offset: 0, limit: 100 });
    expect(rest.records.map((r) => `${r.key!.toString()}@${r.offset}`)).toEqual(committedBefore);
    expect(rest.logEndOffset).toBe(7);
    expect(await world.h.client.listOffsets({ partitionId })).toMatchObject({ earliest: 0, latest: 7 });
    expect(await streamed(partitionId, "replay")).toEqual({ keys: committedBefore, end: 7 });
    // read_uncommitted: all data, the aborted and open records included; markers are never records.
    const everything = ["p0@0", "a0@1", "a1@2", "b0@3", "p1@6", "c0@7", "p2@8"];
    expect(await kafkajsRead(client, topic, true, 7)).toEqual(everything);
    expect(await librdkafkaRead(topic, "read_uncommitted", 7)).toEqual(everything);

    await log.appendTxnMarker(marker(103, true)); // 9
    expect(await listOffsets(topic, 1)).toBe(10);
    const committedAfter = [...committedBefore, "c0@7", "p2@8"];
    expect(await kafkajsRead(client, topic, false, 6)).toEqual(committedAfter);
    expect(await librdkafkaRead(topic, "read_committed", 6)).toEqual(committedAfter);
    const restAfter = await world.h.client.fetch({ partitionId, offset: 0, limit: 100 });
    expect(restAfter.records.map((r) => `${r.key!.toString()}@${r.offset}`)).toEqual(committedAfter);
    expect(await streamed(partitionId, "replay")).toEqual({ keys: committedAfter, end: 10 });
    // A reader at the last marker is moved past it, not answered the same empty page for ever.
    expect(await world.h.client.fetch({ partitionId, offset: 9, limit: 100 })).toMatchObject({
      records: [],
      nextOffset: 10,
      logEndOffset: 10,
    });
    // Record reads (the REST path's) are read_committed: never the aborted b0, never a marker.
    const records = await log.read(0, {});
    expect(records.map((r) => `${r.key!.toString()}@${r.offset}`)).toEqual(committedAfter);
  });
});
