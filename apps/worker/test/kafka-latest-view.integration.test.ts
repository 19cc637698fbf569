import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { decodeRecordBatch } from "@lastword/dataplane";
import { ApiKey, decodeResponse, ErrorCode } from "@lastword/kafka-protocol";
import { decodeBatch } from "@lastword/record-batch";
import { CompressionTypes, Kafka, type KafkaMessage, logLevel } from "kafkajs";
import { describe, expect, it } from "vitest";
import { CLIENT_SCOPES, createKafkaKey, fetchBody, kcatSasl, RawKafka, run } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { createNamedTopic, eventually } from "./test-topics";

// The `<topic>.latest` view with unmodified clients (kafkajs, kcat on librdkafka 2.0.2): a dirty
// compacted topic read through it gives exactly the worker's snapshot (plus the live tombstones),
// then the live tail; offsets committed on it are the topic's.

const ORG = "org_latest_view";
const OTHER_ORG = "org_latest_other";
/** A tenant with a topic named `*.latest` from before the suffix was reserved. */
const LEGACY_ORG = "org_latest_legacy";
const PARTITIONS = 3;
const KEYS = 60;
const ROUNDS = 6;
/** Keys deleted after the last round: their tombstones are live (no pass ran). */
const DELETED = ["key-3", "key-17", "key-42"];

/** May write topics too: the refusals below are the view's, not a missing scope's. */
let adminKey: { id: string; secret: string };

const world = useKafkaWorld({ name: "kafka-latest-view", secret: "kafka-latest-view-secret" }, ORG, {
  topics: {
    prices: [PARTITIONS, { "cleanup.policy": "compact" }],
    events: [1, { "cleanup.policy": "delete" }],
    // One batch per segment, so a forced pass can clean all but the newest.
    gappy: [1, { "cleanup.policy": "compact", "segment.bytes": "100", "min.cleanable.dirty.ratio": "0.01" }],
  },
  tenants: {
    [OTHER_ORG]: { secret: [1, { "cleanup.policy": "compact" }] },
    [LEGACY_ORG]: {
      legacy: [1, { "cleanup.policy": "compact" }],
      "legacy.latest": [1, { "cleanup.policy": "delete" }],
    },
  },
  worker: { kafka: { groups: { initialRebalanceDelayMs: 0 } } },
  setup: async (h) => {
    process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";
    adminKey = await createKafkaKey(h.db.prisma, ORG, [...CLIENT_SCOPES, "topics:write"]);
  },
});
const otherKey = () => world.tenantKeys[OTHER_ORG]!;
const legacyKey = () => world.tenantKeys[LEGACY_ORG]!;
const partitionIds = () => world.topicIds.prices!;

function kafka(as = world.key): Kafka {
  return new Kafka({
    brokers: [world.bootstrap],
    clientId: "latest-view",
    sasl: { mechanism: "plain", username: as.id, password: as.secret },
    logLevel: logLevel.NOTHING,
  });
}

interface Seen {
  partition: number;
  offset: number;
  key: string;
  value: string | null;
}

const order = (rows: Seen[]) => [...rows].sort((a, b) => a.partition - b.partition || a.offset - b.offset);

/** Each partition's snapshot from the worker's own stream (the REST snapshot's source). */
async function snapshot(ids = partitionIds()): Promise<Seen[]> {
  const rows: Seen[] = [];
  for (const [partition, partitionId] of ids.entries()) {
    for await (const piece of world.h.client.streamPartitionPieces({ partitionId, mode: "snapshot" })) {
      if (piece.kind === "end") continue;
      for (const r of decodeRecordBatch(piece.parts)) {
        rows.push({
          partition,
          offset: r.offset,
          key: r.key!.toString(),
          value: r.value?.toString() ?? null,
        });
      }
    }
  }
  return order(rows);
}

/** A kafkajs group member reading `topic` from the start (or its committed offsets), collecting what it gets. */
async function consume(topic: string, groupId: string) {
  const consumer = kafka().consumer({ groupId, maxWaitTimeInMs: 200 });
  const received: Seen[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }: { partition: number; message: KafkaMessage }) => {
      received.push({
        partition,
        offset: Number(message.offset),
        key: message.key!.toString(),
        value: message.value?.toString() ?? null,
      });
    },
  });
  return { consumer, received };
}

/** The view read by kcat from the beginning to the end of every partition (-e), null values as NULL. */
async function kcatView(): Promise<Seen[]> {
  const format = ["-o", "beginning", "-e", "-q", "-Z", "-f", "%p|%o|%k|%s\\n"];
  const { stdout } = await run(
    "kcat",
    [...kcatSasl(world.bootstrap, world.key), "-C", "-t", "prices.latest", ...format],
    {
      timeout: 30_000,
    },
  );
  return stdout
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => l.split("|"))
    .map(([p, o, k, v]) => ({
      partition: Number(p),
      offset: Number(o),
      key: k!,
      value: v === "NULL" ? null : v!,
    }));
}

async function until(rows: Seen[], count: number, what: string): Promise<void> {
  await eventually(what, 30_000, async () => (rows.length >= count ? true : undefined));
}

describe("the <topic>.latest view", () => {
  let expected: Seen[];
  let tombstoneKeys: string[];
  let tail: Seen[];

  it("a kafkajs consumer of the view of a dirty topic gets exactly the snapshot and the live tombstones, then the new writes; its commits are the topic's offsets", async () => {
    const producer = kafka().producer();
    await producer.connect();
    for (let round = 0; round < ROUNDS; round++) {
      await producer.send({
        topic: "prices",
        // One round compressed: a batch the view must inflate to filter.
        compression: round === 2 ? CompressionTypes.GZIP : CompressionTypes.None,
        messages: Array.from({ length: KEYS }, (_, i) => ({ key: `key-${i}`, value: `r${round}-${i}` })),
      });
    }
    await producer.send({ topic: "prices", messages: DELETED.map((k) => ({ key: k, value: null })) });

    const snap = await snapshot();
    expect(snap).toHaveLength(KEYS - DELETED.length);
    expect(snap.every((r) => r.value === `r${ROUNDS - 1}-${r.key.slice(4)}`)).toBe(true);

    const reader = await consume("prices.latest", "view-reader");
    await until(reader.received, KEYS, "the view read");
    const live = order(reader.received.filter((r) => r.value !== null));
    const tombstones = reader.received.filter((r) => r.value === null);
    // Exactly the snapshot's records, at the topic's offsets; each deleted key once, as its tombstone.
    expect(live).toEqual(snap);
    tombstoneKeys = tombstones.map((r) => r.key).sort();
    expect(tombstoneKeys).toEqual([...DELETED].sort());
    expect(reader.received).toHaveLength(KEYS);
    expected = order(reader.received);

    // The live tail: a new value of an existing key and a new key arrive as written.
    await producer.send({
      topic: "prices",
      messages: [
        { key: "key-5", value: "fresh-5" },
        { key: "key-new", value: "fresh-new" },
      ],
    });
    await until(reader.received, KEYS + 2, "the new writes through the view");
    expect(reader.received.slice(KEYS).map((r) => [r.key, r.value])).toEqual(
      expect.arrayContaining([
        ["key-5", "fresh-5"],
        ["key-new", "fresh-new"],
      ]),
    );
    await reader.consumer.disconnect();

    // The group committed on the view; the same group on the real topic resumes right after.
    const admin = kafka().admin();
    await admin.connect();
    const onView = await admin.fetchOffsets({ groupId: "view-reader", topics: ["prices.latest"] });
    const onTopic = await admin.fetchOffsets({ groupId: "view-reader", topics: ["prices"] });
    const ends = await admin.fetchTopicOffsets("prices");
    const byPartition = (o: { partition: number; offset: string }[]) =>
      Object.fromEntries(o.map((p) => [p.partition, p.offset]));
    expect(byPartition(onTopic[0]!.partitions)).toEqual(
      byPartition(ends.map((e) => ({ ...e, offset: e.high }))),
    );
    expect(byPartition(onView[0]!.partitions)).toEqual(byPartition(onTopic[0]!.partitions));
    await admin.disconnect();

    await producer.send({ topic: "prices", messages: [{ key: "key-9", value: "after-switch" }] });
    await producer.disconnect();
    const switched = await consume("prices", "view-reader");
    await until(switched.received, 1, "the record after the commit");
    expect(switched.received.map((r) => [r.key, r.value])).toEqual([["key-9", "after-switch"]]);
    tail = [...reader.received.slice(KEYS), ...switched.received];
    await switched.consumer.disconnect();

    // One set of offsets: OffsetDelete on the view name removes the topic's.
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    await raw.loginPlain(world.key.id, world.key.secret);
    const all = [
      { name: "prices.latest", partitions: partitionIds().map((_, partitionIndex) => ({ partitionIndex })) },
    ];
    const deleted = await raw.call(ApiKey.OffsetDelete, 0, { groupId: "view-reader", topics: all });
    raw.close();
    expect(deleted.errorCode).toBe(0);
    expect(deleted.topics[0]!.partitions.map((p) => p.errorCode)).toEqual(partitionIds().map(() => 0));
    const check = kafka().admin();
    await check.connect();
    const gone = await check.fetchOffsets({ groupId: "view-reader", topics: ["prices"] });
    await check.disconnect();
    expect(gone[0]!.partitions.map((p) => p.offset)).toEqual(partitionIds().map(() => "-1"));
  });

  it("kcat (librdkafka 2.0.2) reading the view to its end gets the same records", async () => {
    const rows = await kcatView();
    // A new connection reads through the partition's shared freeze while it is fresh (fewer
    // records appended since than it keeps): the first consumer's view, then the real log after
    // it — the three writes since, the superseded key-5 and key-9 included, as the topic has them.
    expect(order(rows)).toEqual(order([...expected, ...tail]));
  });

  it("is listed in Metadata next to each compacted topic of the tenant only, and answers the topic's offsets", async () => {
    const admin = kafka().admin();
    await admin.connect();
    expect((await admin.listTopics()).sort()).toEqual([
      "events",
      "gappy",
      "gappy.latest",
      "prices",
      "prices.latest",
    ]);
    const meta = await admin.fetchTopicMetadata({ topics: ["prices", "prices.latest"] });
    const [topic, view] = meta.topics;
    expect(view!.partitions.map((p) => [p.partitionId, p.leader])).toEqual(
      topic!.partitions.map((p) => [p.partitionId, p.leader]),
    );
    expect(await admin.fetchTopicOffsets("prices.latest")).toEqual(await admin.fetchTopicOffsets("prices"));
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2, name: "prices.latest", configNames: ["cleanup.policy"] }],
    });
    expect(described.resources[0]!.configEntries).toEqual([
      expect.objectContaining({ configName: "cleanup.policy", configValue: "compact", readOnly: true }),
    ]);
    await admin.disconnect();

    const other = kafka(otherKey()).admin();
    await other.connect();
    expect((await other.listTopics()).sort()).toEqual(["secret", "secret.latest"]);
    await other.disconnect();
    // A topic that holds a view's name keeps it: no view is listed under it, and it is written as itself.
    const legacy = kafka(legacyKey());
    const legacyAdmin = legacy.admin();
    await legacyAdmin.connect();
    expect((await legacyAdmin.listTopics()).sort()).toEqual(["legacy", "legacy.latest"]);
    await legacyAdmin.disconnect();
    const legacyProducer = legacy.producer();
    await legacyProducer.connect();
    const [written] = await legacyProducer.send({ topic: "legacy.latest", messages: [{ value: "own" }] });
    await legacyProducer.disconnect();
    expect(written).toMatchObject({ topicName: "legacy.latest", errorCode: 0 });
    // Another tenant's view is exactly a missing topic.
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    await raw.loginPlain(otherKey().id, otherKey().secret);
    const fetched = decodeResponse(1, 11, await raw.request(1, 11, fetchBody("prices.latest", 0, 0), 0)).body;
    raw.close();
    expect(fetched.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it("is read-only: Produce, DeleteRecords, CreatePartitions and config changes are refused; no topic may take a view's name", async () => {
    const before = await world.h.db.prisma.topic.count({ where: { organizationId: ORG } });
    const producer = kafka().producer();
    await producer.connect();
    await expect(
      producer.send({ topic: "prices.latest", messages: [{ key: "key-1", value: "nope" }] }),
    ).rejects.toMatchObject({ type: "TOPIC_AUTHORIZATION_FAILED" });
    await producer.disconnect();

    const admin = kafka(adminKey).admin();
    await admin.connect();
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    await raw.loginPlain(adminKey.id, adminKey.secret);
    const deleteRecords = {
      topics: [{ name: "prices.latest", partitions: [{ partitionIndex: 0, offset: 1n }] }],
      timeoutMs: 1000,
    };
    const deleted = decodeResponse(21, 2, await raw.request(21, 2, deleteRecords, 0)).body;
    raw.close();
    expect(deleted.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    await expect(
      admin.createPartitions({ topicPartitions: [{ topic: "prices.latest", count: 4 }] }),
    ).rejects.toMatchObject({ type: "TOPIC_AUTHORIZATION_FAILED" });
    await expect(
      admin.alterConfigs({
        validateOnly: false,
        resources: [
          { type: 2, name: "prices.latest", configEntries: [{ name: "retention.ms", value: "1" }] },
        ],
      }),
    ).rejects.toMatchObject({ type: "TOPIC_AUTHORIZATION_FAILED" });
    await expect(admin.deleteTopics({ topics: ["prices.latest"] })).rejects.toMatchObject({
      type: "TOPIC_AUTHORIZATION_FAILED",
    });
    await expect(admin.createTopics({ topics: [{ topic: "orders.latest" }] })).rejects.toMatchObject({
      errors: [{ type: "INVALID_TOPIC_EXCEPTION" }],
    });
    await admin.disconnect();
    expect(await world.h.db.prisma.topic.count({ where: { organizationId: ORG } })).toBe(before);

    // Nothing was written: the view still reads exactly as the topic's latest values.
    const ends = await kafka().admin();
    await ends.connect();
    const high = (await ends.fetchTopicOffsets("prices")).reduce((n, p) => n + Number(p.high), 0);
    await ends.disconnect();
    expect(high).toBe(KEYS * ROUNDS + DELETED.length + 3);
  });

  it("is frozen anew for the next connection once more was appended than it keeps: each key once, at its latest", async () => {
    const producer = kafka().producer();
    await producer.connect();
    for (const round of ["x", "y"]) {
      await producer.send({
        topic: "prices",
        messages: Array.from({ length: KEYS }, (_, i) => ({ key: `key-${i}`, value: `${round}-${i}` })),
      });
    }
    await producer.disconnect();
    const rows = order(await kcatView());
    const live = rows.filter((r) => r.value !== null);
    expect(live.map((r) => r.key).sort()).toEqual(
      [...Array.from({ length: KEYS }, (_, i) => `key-${i}`), "key-new"].sort(),
    );
    expect(live.filter((r) => r.key !== "key-new").every((r) => r.value === `y-${r.key.slice(4)}`)).toBe(
      true,
    );
    // The keys deleted before were written again: no tombstone is anyone's latest now.
    expect(rows).toHaveLength(KEYS + 1);
  });

  it("a pass that removes frozen records mid-read: the reader skips them and goes on to the tail", async () => {
    const producer = kafka().producer();
    await producer.connect();
    const keys = ["k1", "k2", "k3", "k4", "k5"];
    // Offsets 0–4 then 5–9, one batch (and segment) each: the view keeps 5–9.
    for (const value of ["a", "b"])
      for (const k of keys) await producer.send({ topic: "gappy", messages: [{ key: k, value }] });
    const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
    await raw.loginPlain(world.key.id, world.key.secret);
    const read = async (offset: number, partitionMaxBytes: number) => {
      const body = fetchBody("gappy.latest", 0, offset, { partitionMaxBytes });
      const answer = decodeResponse(1, 11, await raw.request(1, 11, body, 0)).body;
      const bytes = answer.responses[0]!.partitions[0]!.records!;
      const out: [number, string, string | null][] = [];
      for (let pos = 0; pos < bytes.length; ) {
        const { header, records } = decodeBatch(bytes, pos);
        for (const r of records) out.push([r.offset, r.key!.toString(), r.value?.toString() ?? null]);
        pos += header.sizeBytes;
      }
      return out;
    };
    // The first batch only (1 byte allowed): the connection pins the view ending at 10.
    expect(await read(0, 1)).toEqual([[5, "k1", "b"]]);
    // k2–k5 written again (then k0, so they are out of the active segment), and a pass removes
    // 6–9 under the pinned view: the read from 6 finds nothing of it and goes on from its end.
    for (const k of keys.slice(1))
      await producer.send({ topic: "gappy", messages: [{ key: k, value: "c" }] });
    await producer.send({ topic: "gappy", messages: [{ key: "k0", value: "z" }] });
    await producer.disconnect();
    await world.h.client.requestClean({ partitionId: world.topicIds.gappy![0]! });
    expect(await read(6, 1 << 20)).toEqual([
      ...keys.slice(1).map((k, i) => [10 + i, k, "c"]),
      [14, "k0", "z"],
    ]);
    raw.close();
  });
});

describe("a librdkafka group on the view", () => {
  /** A python3-confluent-kafka group member (librdkafka-member.py): what it reads, as it reads it. */
  function member(groupId: string, topic: string) {
    const script = fileURLToPath(new URL("./librdkafka-member.py", import.meta.url));
    const child = spawn(
      "/usr/bin/python3",
      [script, world.bootstrap, world.key.id, world.key.secret, groupId, topic, "range"],
      {
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    const received: Seen[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const event = JSON.parse(line) as { record?: [number, string | null]; offset?: number; key?: string };
      if (!event.record) return;
      const [partition, value] = event.record;
      received.push({ partition, offset: event.offset!, key: event.key!, value });
    });
    return { child, received };
  }

  async function stop(child: ChildProcess): Promise<void> {
    // SIGINT: the member closes its consumer, which commits what it read and leaves the group.
    child.kill("SIGINT");
    if (child.exitCode === null) await once(child, "exit");
  }

  it("reads exactly the snapshot's records and live tombstones, then new writes, commits; the group resumes on the topic after its commits", async () => {
    const ids = await createNamedTopic(world.h.db.prisma, ORG, "quotes", 2, { "cleanup.policy": "compact" });
    await eventually("the new partitions hosted", 20_000, async () =>
      ids.every((id) => world.worker.ownedPartitions().includes(id)) ? true : undefined,
    );
    const producer = kafka().producer();
    await producer.connect();
    for (let round = 0; round < 4; round++) {
      const messages = Array.from({ length: 30 }, (_, i) => ({ key: `q-${i}`, value: `q${round}-${i}` }));
      await producer.send({ topic: "quotes", messages });
    }
    await producer.send({ topic: "quotes", messages: ["q-4", "q-20"].map((k) => ({ key: k, value: null })) });
    const snap = await snapshot(ids);
    expect(snap).toHaveLength(28);

    const reader = member("rd-view", "quotes.latest");
    await until(reader.received, 30, "the view read by librdkafka");
    expect(order(reader.received.filter((r) => r.value !== null))).toEqual(snap);
    expect(
      reader.received
        .filter((r) => r.value === null)
        .map((r) => r.key)
        .sort(),
    ).toEqual(["q-20", "q-4"]);
    await producer.send({
      topic: "quotes",
      messages: [
        { key: "q-7", value: "fresh-7" },
        { key: "q-new", value: "fresh-new" },
      ],
    });
    await until(reader.received, 32, "the new writes through the view");
    expect(reader.received.slice(30).map((r) => [r.key, r.value])).toEqual(
      expect.arrayContaining([
        ["q-7", "fresh-7"],
        ["q-new", "fresh-new"],
      ]),
    );
    expect(reader.received).toHaveLength(32);
    await stop(reader.child);

    // Its commits on the view are the topic's offsets, at the high watermarks.
    const admin = kafka().admin();
    await admin.connect();
    const committed = await admin.fetchOffsets({ groupId: "rd-view", topics: ["quotes"] });
    const ends = await admin.fetchTopicOffsets("quotes");
    await admin.disconnect();
    const byPartition = (o: { partition: number; offset: string }[]) =>
      Object.fromEntries(o.map((p) => [p.partition, p.offset]));
    expect(byPartition(committed[0]!.partitions)).toEqual(
      byPartition(ends.map((e) => ({ ...e, offset: e.high }))),
    );

    await producer.send({ topic: "quotes", messages: [{ key: "q-9", value: "after-switch" }] });
    await producer.disconnect();
    const resumed = member("rd-view", "quotes");
    await until(resumed.received, 1, "the record after the commits");
    expect(resumed.received.map((r) => [r.key, r.value])).toEqual([["q-9", "after-switch"]]);
    await stop(resumed.child);
  });
});
