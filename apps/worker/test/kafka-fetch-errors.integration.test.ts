import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { type Consumer, Kafka, logLevel } from "kafkajs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CLIENT_SCOPES,
  createKafkaKey,
  createNamedTopic,
  fetchBody,
  kcatProperties,
  kcatSasl,
  RawKafka,
  run,
  startKafkaWorker,
} from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// Every Fetch partition error carries an empty record set, as Kafka's does: librdkafka 2.0.2 reads a
// null one as "invalid MessageSetSize -1", drops the whole response and refetches in a hot loop,
// never seeing the error. So each error path is driven with librdkafka (kcat, python3-confluent-kafka)
// and kafkajs, which must act on it: reset an out-of-range offset (above the end, or a group's
// committed offset below the log start), follow a partition to its new leader, report a topic that
// went away. Fenced and unknown leader epochs, which neither client sends, are checked on the wire.

const PYTHON = "/usr/bin/python3";
const ORG = "org_fetch_errors";
const SCOPES = [...CLIENT_SCOPES, "topics:write"] as const;
const children: ChildProcess[] = [];
const consumers: Consumer[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  await Promise.all(consumers.splice(0).map((c) => c.disconnect()));
});

interface Reader {
  records: [number, number, string][];
  errors: string[];
  debug: () => string;
  exited: Promise<number | null>;
}

/** librdkafka-fetch-reader.py: `spec` is "subscribe" or "assign:<p>@<offset>,…". */
function confluentReader(
  bootstrap: string,
  key: { id: string; secret: string },
  o: { group: string; topic: string; spec: string; count: number },
): Reader {
  const script = fileURLToPath(new URL("./librdkafka-fetch-reader.py", import.meta.url));
  const args = [script, bootstrap, key.id, key.secret, o.group, o.topic, o.spec, String(o.count)];
  const child = spawn(PYTHON, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  const reader: Reader = {
    records: [],
    errors: [],
    debug: () => debug,
    exited: new Promise((resolve) => child.on("exit", (code) => resolve(code))),
  };
  let debug = "";
  child.stderr!.on("data", (d: Buffer) => (debug = (debug + d.toString()).slice(-200_000)));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const event = JSON.parse(line) as { record?: [number, number, string]; error?: string };
    if (event.record) reader.records.push(event.record);
    if (event.error) reader.errors.push(event.error);
  });
  return reader;
}

/** A kcat consumer printing `partition|offset|value` lines as they come (-u: unbuffered). */
function kcatReader(args: string[]): { lines: string[] } {
  const child = spawn("kcat", [...args, "-u", "-q", "-f", "%p|%o|%s\\n"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  children.push(child);
  const out = { lines: [] as string[] };
  createInterface({ input: child.stdout! }).on("line", (line) => out.lines.push(line));
  return out;
}

function kafkajs(bootstrap: string[], key: { id: string; secret: string }): Kafka {
  return new Kafka({
    brokers: bootstrap,
    sasl: { mechanism: "plain", username: key.id, password: key.secret },
    logLevel: logLevel.NOTHING,
    retry: { retries: 20, initialRetryTime: 100 },
  });
}

/** A kafkajs group member from its committed offsets (the earliest when none or out of range). */
async function kafkajsReader(client: Kafka, groupId: string, topic: string) {
  const consumer = client.consumer({ groupId, maxWaitTimeInMs: 100 });
  consumers.push(consumer);
  const records: [number, number, string][] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      records.push([partition, Number(message.offset), message.value!.toString()]);
    },
  });
  return records;
}

async function produce(client: Kafka, topic: string, messages: { partition: number; value: string }[]) {
  const keyed = messages.map((m) => ({ ...m, key: m.value }));
  const producer = client.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: keyed });
  await producer.disconnect();
}

/** Commits `offset` on partition 0 of `topic` for each group (kafkajs admin setOffsets). */
async function commitOffset(client: Kafka, groupIds: string[], topic: string, offset: string) {
  const admin = client.admin();
  await admin.connect();
  for (const groupId of groupIds)
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset }] });
  await admin.disconnect();
}

const values = (prefix: string, n: number, partition = 0) =>
  Array.from({ length: n }, (_, i) => ({ partition, value: `${prefix}${i}` }));

describe("one worker", () => {
  let client: Kafka;
  const world = useKafkaWorld({ name: "kafka-fetch-errors" }, ORG, {
    topics: { ahead: 1, trimmed: [1, { "cleanup.policy": "compact,delete" }], doomed: 1 },
    scopes: SCOPES,
  });

  /** A librdkafka reader as the world's key, once it stopped by itself: it read `count` records (exit 0). */
  async function readToCount(o: Parameters<typeof confluentReader>[2]): Promise<Reader> {
    const reader = confluentReader(world.bootstrap, world.key, o);
    expect(await reader.exited).toBe(0);
    return reader;
  }

  beforeAll(async () => {
    client = kafkajs([world.bootstrap], world.key);
    await produce(client, "ahead", values("a", 5));
    await produce(client, "trimmed", values("t", 10));
    const admin = client.admin();
    await admin.connect();
    // kafkajs finds the leaders in the metadata it already holds for the topic.
    await admin.fetchTopicMetadata({ topics: ["trimmed"] });
    await admin.deleteTopicRecords({ topic: "trimmed", partitions: [{ partition: 0, offset: "6" }] });
    await admin.disconnect();
  });

  it("a fetch above the log end is OFFSET_OUT_OF_RANGE: kcat, confluent_kafka and kafkajs reset to the start and read", async () => {
    const { stdout } = await run(
      "kcat",
      [
        ...kcatSasl(world.bootstrap, world.key),
        "-C",
        "-t",
        "ahead",
        "-p",
        "0",
        "-o",
        "1000000",
        ...kcatProperties({ "auto.offset.reset": "earliest" }),
        "-c",
        "1",
        "-q",
        "-f",
        "%o|%s\\n",
      ],
      { timeout: 30_000 },
    );
    expect(stdout).toBe("0|a0\n");

    const reader = await readToCount({
      group: "ahead-rdk",
      topic: "ahead",
      spec: "assign:0@1000000",
      count: 5,
    });
    expect(reader.records).toEqual(values("a", 5).map((r, i) => [0, i, r.value]));
    expect(reader.debug()).not.toContain("parse failure");

    await commitOffset(client, ["ahead-js"], "ahead", "1000000");
    const records = await kafkajsReader(client, "ahead-js", "ahead");
    await eventually("kafkajs reset and read", 30_000, async () => (records.length >= 5 ? true : undefined));
    expect(records).toEqual(values("a", 5).map((r, i) => [0, i, r.value]));
  });

  it("a group committed below the log start gets OFFSET_OUT_OF_RANGE and resets to it: confluent_kafka, kcat -G and kafkajs", async () => {
    await commitOffset(client, ["trim-rdk", "trim-kcat", "trim-js"], "trimmed", "2");
    const expected = [6, 7, 8, 9].map((o) => [0, o, `t${o}`]);

    const reader = await readToCount({ group: "trim-rdk", topic: "trimmed", spec: "subscribe", count: 4 });
    expect(reader.records).toEqual(expected);

    const kcat = kcatReader([
      ...kcatSasl(world.bootstrap, world.key),
      ...kcatProperties({ "auto.offset.reset": "earliest" }),
      "-G",
      "trim-kcat",
      "trimmed",
    ]);
    await eventually("kcat -G reset and read", 30_000, async () =>
      kcat.lines.length >= 4 ? true : undefined,
    );
    expect(kcat.lines).toEqual(expected.map((r) => r.join("|")));

    const records = await kafkajsReader(client, "trim-js", "trimmed");
    await eventually("kafkajs reset and read", 30_000, async () => (records.length >= 4 ? true : undefined));
    expect(records).toEqual(expected);
  });

  it("a topic deleted under a librdkafka consumer: its fetch answer's UNKNOWN_TOPIC_OR_PARTITION is read, not dropped as unparseable", async () => {
    await produce(client, "doomed", values("d", 2));
    const reader = confluentReader(world.bootstrap, world.key, {
      group: "doomed-rdk",
      topic: "doomed",
      spec: "assign:0@0",
      count: 3,
    });
    await eventually("both records read", 30_000, async () =>
      reader.records.length >= 2 ? true : undefined,
    );
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const polling = await RawKafka.login(world.worker.kafka!, world.key);
    // A long poll at the log's end, in flight across the deletion: answered as soon as the worker
    // closes the partition, naming the deletion (Kafka's DelayedFetch), not at its deadline.
    const started = performance.now();
    const longPoll = polling.call(ApiKey.Fetch, 11, fetchBody("doomed", 0, 2, { maxWaitMs: 60_000 }));
    const admin = client.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: ["doomed"] });
    await admin.disconnect();
    const polled = (await longPoll).responses[0]!.partitions[0]!;
    expect(polled.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(performance.now() - started).toBeLessThan(60_000);
    polling.close();
    // The consumer's next fetch names the topic that is gone; librdkafka logs the error it read.
    await eventually("librdkafka read the fetch error", 30_000, async () =>
      /Fetch.*Unknown topic or partition/.test(reader.debug()) ? true : undefined,
    );
    expect(reader.debug()).not.toContain("parse failure");
    const answer = (await raw.call(ApiKey.Fetch, 11, fetchBody("doomed", 0, 0))).responses[0]!.partitions[0]!;
    expect(answer.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(answer.records).toEqual(Buffer.alloc(0));
    raw.close();
  });

  it("on the wire every error answer carries an empty record set (Fetch v4–v12): out of range, unknown topic, fenced and unknown leader epoch", async () => {
    const partition = await world.h.db.prisma.partition.findFirstOrThrow({
      where: { index: 0, topic: { organizationId: ORG, name: "ahead" } },
    });
    const epoch = partition.leaseEpoch;
    const raw = await RawKafka.login(world.worker.kafka!, world.key);
    const cases = [
      { body: fetchBody("ahead", 0, 1_000_000), code: ErrorCode.OFFSET_OUT_OF_RANGE },
      { body: fetchBody("never-was", 0, 0), code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
      { body: fetchBody("ahead", 7, 0), code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
      {
        body: fetchBody("ahead", 0, 0, { currentLeaderEpoch: epoch - 1 }),
        code: ErrorCode.FENCED_LEADER_EPOCH,
      },
      {
        body: fetchBody("ahead", 0, 0, { currentLeaderEpoch: epoch + 1 }),
        code: ErrorCode.UNKNOWN_LEADER_EPOCH,
      },
    ];
    for (const version of [4, 9, 11, 12]) {
      for (const { body, code } of cases) {
        if (version < 9 && body.topics[0]!.partitions[0]!.currentLeaderEpoch !== -1) continue;
        const answer = (await raw.call(ApiKey.Fetch, version, body)).responses[0]!.partitions[0]!;
        expect({ version, code: answer.errorCode }).toEqual({ version, code });
        expect(answer.records).toEqual(Buffer.alloc(0));
      }
    }
    raw.close();
  });
});

describe("a partition moving to another worker", () => {
  let h: WorkerHarness;
  let key: { id: string; secret: string };

  beforeAll(async () => {
    h = await openWorkerHarness({ name: "kafka-fetch-moves" });
    await createNamedTopic(h.db.prisma, ORG, "moving", 4);
    key = await createKafkaKey(h.db.prisma, ORG, SCOPES);
  });

  afterAll(async () => {
    await h?.close();
  });

  it("NOT_LEADER_OR_FOLLOWER from the old leader: kcat, confluent_kafka and kafkajs find the new one and read on", async () => {
    const { worker: first, bootstrap } = await startKafkaWorker(h, 4);
    const client = kafkajs([bootstrap], key);
    const before = [0, 1, 2, 3].flatMap((p) => values(`p${p}-before-`, 1, p));
    await produce(client, "moving", before);
    const kcat = kcatReader([...kcatSasl(bootstrap, key), "-C", "-t", "moving", "-o", "beginning"]);
    const reader = confluentReader(bootstrap, key, {
      group: "moving-rdk",
      topic: "moving",
      spec: "assign:0@0,1@0,2@0,3@0",
      count: 8,
    });
    const js = await kafkajsReader(client, "moving-js", "moving");
    await eventually("every reader read the first four", 30_000, async () =>
      kcat.lines.length >= 4 && reader.records.length >= 4 && js.length >= 4 ? true : undefined,
    );

    // A second worker joins: the first hands two partitions back, which the second claims.
    const second = await h.startWorker({ kafka: { host: "127.0.0.1", port: 0 }, claimIntervalMs: 100 });
    const moved = await eventually("two partitions moved", 30_000, async () => {
      const owned = second.ownedPartitions();
      return owned.length === 2 && first.ownedPartitions().length === 2 ? owned : undefined;
    });
    const rows = await h.db.prisma.partition.findMany({ where: { id: { in: moved } } });
    const raw = await RawKafka.login(first.kafka!, key);
    // The old leader's own Metadata stops naming it at once: it forgot what it cached when it
    // handed the partitions back (a stale answer sent a producer's retries here, writing twice).
    const named = (
      await raw.call(ApiKey.Metadata, 9, { topics: [{ name: "moving" }], allowAutoTopicCreation: false })
    ).topics[0]!.partitions.filter((p) => rows.some((r) => r.index === p.partitionIndex));
    expect(named.map((p) => p.leaderId)).not.toContain(first.kafka!.nodeId);
    for (const row of rows) {
      const answer = (await raw.call(ApiKey.Fetch, 11, fetchBody("moving", row.index, 0))).responses[0]!
        .partitions[0]!;
      expect(answer.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      expect(answer.records).toEqual(Buffer.alloc(0));
    }
    raw.close();

    const after = [0, 1, 2, 3].flatMap((p) => values(`p${p}-after-`, 1, p));
    await produce(kafkajs([bootstrap, `${second.kafka!.host}:${second.kafka!.port}`], key), "moving", after);
    const everything = [...before, ...after].map((r) => `${r.partition}|${r.value}`).sort();
    const jsSeen = () => new Set(js.map(([p, , v]) => `${p}|${v}`));
    await eventually("every reader read all eight", 60_000, async () =>
      kcat.lines.length >= 8 && reader.records.length >= 8 && jsSeen().size >= 8 ? true : undefined,
    );
    expect(
      kcat.lines
        .map((l) => l.split("|"))
        .map(([p, , v]) => `${p}|${v}`)
        .sort(),
    ).toEqual(everything);
    expect(reader.records.map(([p, , v]) => `${p}|${v}`).sort()).toEqual(everything);
    // A group member may see a record again after a rebalance (at-least-once, from the last commit).
    expect([...jsSeen()].sort()).toEqual(everything);
    expect(await reader.exited).toBe(0);
    expect(reader.debug()).not.toContain("parse failure");
  });
});
