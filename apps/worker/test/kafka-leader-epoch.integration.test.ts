import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { decodeResponse, ErrorCode } from "@lastword/kafka-protocol";
import { OFF_LEADER_EPOCH } from "@lastword/record-batch";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic, fetchBody, RawKafka } from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// Leader epochs: Metadata names each partition's lease epoch, Fetch / ListOffsets /
// OffsetForLeaderEpoch check the client's current epoch as Kafka does, and the epoch history lives
// in the partition directory, so a new owner answers for the epochs before it. A librdkafka
// consumer (python3-confluent-kafka) keeps reading across a failover; one that knows leader epochs
// (2.1+) validates its position with the new leader on the way.

// Debian's python3-confluent-kafka by default; another interpreter (a newer librdkafka) when given.
const PYTHON = process.env.LASTWORD_TEST_PYTHON ?? "/usr/bin/python3";
const LEASE_TTL_MS = 2_000;
const ORG = "org_kafka_epochs";
const OTHER = "org_kafka_epochs_other";
let h: WorkerHarness;
let key: { id: string; secret: string };
let otherKey: { id: string; secret: string };
let first: RunningWorker;
const children: ChildProcess[] = [];

beforeAll(async () => {
  h = await openWorkerHarness({ name: "kafka-epochs", secret: "kafka-epochs-secret", ownerWaitMs: 15_000 });
  await createNamedTopic(h.db.prisma, ORG, "checked", 1);
  await createNamedTopic(h.db.prisma, ORG, "failover", 1);
  await createNamedTopic(h.db.prisma, OTHER, "checked", 1);
  key = await createKafkaKey(h.db.prisma, ORG, CLIENT_SCOPES);
  otherKey = await createKafkaKey(h.db.prisma, OTHER, CLIENT_SCOPES);
  first = await h.startWorker(workerConfig());
  await eventually("every partition hosted", 20_000, async () =>
    first.ownedPartitions().length === 3 ? true : undefined,
  );
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await h?.close();
});

function workerConfig() {
  return { kafka: { host: "127.0.0.1", port: 0 }, claimIntervalMs: 100, leaseTtlMs: LEASE_TTL_MS };
}

const address = (w: RunningWorker) => `${w.kafka!.host}:${w.kafka!.port}`;

async function leaseEpoch(
  organizationId: string,
  topic: string,
): Promise<{ epoch: number; owner: string | null }> {
  const row = await h.db.prisma.partition.findFirstOrThrow({
    where: { index: 0, topic: { organizationId, name: topic } },
  });
  return { epoch: row.leaseEpoch, owner: row.ownerWorkerId };
}

async function produce(brokers: string[], topic: string, values: string[]): Promise<void> {
  const producer = new Kafka({
    brokers,
    sasl: { mechanism: "plain", username: key.id, password: key.secret },
    logLevel: logLevel.NOTHING,
    retry: { retries: 20, initialRetryTime: 100 },
  }).producer();
  await producer.connect();
  for (const value of values) await producer.send({ topic, acks: -1, messages: [{ key: value, value }] });
  await producer.disconnect();
}

async function login(w: RunningWorker, k = key): Promise<RawKafka> {
  const raw = await RawKafka.login(w.kafka!, k);
  return raw;
}

function epochRequest(topic: string, leaderEpoch: number, currentLeaderEpoch: number) {
  return {
    replicaId: -1,
    topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch, leaderEpoch }] }],
  };
}

async function endOffsetFor(
  raw: RawKafka,
  version: number,
  topic: string,
  leaderEpoch: number,
  current: number,
) {
  const frame = await raw.request(23, version, epochRequest(topic, leaderEpoch, current), 0);
  return decodeResponse(23, version, frame).body.topics[0]!.partitions[0]!;
}

describe("leader epochs", () => {
  it("Metadata names the lease epoch; Fetch, ListOffsets and OffsetForLeaderEpoch fence an older one and refuse a newer one", async () => {
    await produce([address(first)], "checked", ["a", "b", "c"]);
    const { epoch } = await leaseEpoch(ORG, "checked");
    expect(epoch).toBeGreaterThanOrEqual(1);
    const raw = await login(first);

    const metadata = decodeResponse(
      3,
      9,
      await raw.request(3, 9, { topics: [{ name: "checked" }], allowAutoTopicCreation: false }, 0),
    ).body;
    expect(metadata.topics[0]!.partitions[0]!.leaderEpoch).toBe(epoch);

    const fetchError = async (current: number) => {
      const body = fetchBody("checked", 0, 0, { currentLeaderEpoch: current });
      return decodeResponse(1, 11, await raw.request(1, 11, body, 0)).body.responses[0]!.partitions[0]!;
    };
    expect((await fetchError(epoch - 1)).errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    expect((await fetchError(epoch + 1)).errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
    const fetched = await fetchError(epoch);
    expect(fetched.errorCode).toBe(0);
    // Every batch served carries the epoch that appended it (written at the batch's epoch field).
    expect(fetched.records!.readInt32BE(OFF_LEADER_EPOCH)).toBe(epoch);
    expect((await fetchError(-1)).errorCode).toBe(0);

    const listOffsets = async (current: number) => {
      const body = {
        replicaId: -1,
        isolationLevel: 0,
        topics: [
          {
            name: "checked",
            partitions: [{ partitionIndex: 0, currentLeaderEpoch: current, timestamp: -1n }],
          },
        ],
      };
      return decodeResponse(2, 4, await raw.request(2, 4, body, 0)).body.topics[0]!.partitions[0]!;
    };
    expect((await listOffsets(epoch - 1)).errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    expect((await listOffsets(epoch + 1)).errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
    expect(await listOffsets(epoch)).toMatchObject({ errorCode: 0, offset: 3n, leaderEpoch: epoch });

    for (const version of [3, 4]) {
      expect(await endOffsetFor(raw, version, "checked", epoch, epoch)).toMatchObject({
        errorCode: 0,
        leaderEpoch: epoch,
        endOffset: 3n,
      });
      expect((await endOffsetFor(raw, version, "checked", epoch, epoch - 1)).errorCode).toBe(
        ErrorCode.FENCED_LEADER_EPOCH,
      );
      expect((await endOffsetFor(raw, version, "checked", epoch, epoch + 1)).errorCode).toBe(
        ErrorCode.UNKNOWN_LEADER_EPOCH,
      );
      // An epoch above the latest is undefined, not an error.
      expect(await endOffsetFor(raw, version, "checked", epoch + 3, -1)).toMatchObject({
        errorCode: 0,
        leaderEpoch: -1,
        endOffset: -1n,
      });
    }
    // v0 has no current epoch: the end offset alone.
    expect(await endOffsetFor(raw, 0, "checked", epoch, -1)).toMatchObject({ errorCode: 0, endOffset: 3n });
    expect((await endOffsetFor(raw, 2, "missing", 1, -1)).errorCode).toBe(
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );
    raw.close();

    // Another tenant's topic of the same name is its own partition: nothing of this one shows.
    const other = await login(first, otherKey);
    const otherEpoch = (await leaseEpoch(OTHER, "checked")).epoch;
    expect(await endOffsetFor(other, 2, "checked", otherEpoch, -1)).toMatchObject({ endOffset: 0n });
    other.close();
  });

  it("librdkafka keeps consuming across a failover (validating its position when it knows epochs); the new leader answers for the old epoch", async () => {
    await produce([address(first)], "failover", ["r0", "r1", "r2", "r3", "r4"]);
    const before = await leaseEpoch(ORG, "failover");
    const second = await h.startWorker(workerConfig());
    const bootstrap = `${address(first)},${address(second)}`;

    const script = fileURLToPath(new URL("./librdkafka-epoch-reader.py", import.meta.url));
    const child = spawn(PYTHON, [script, bootstrap, key.id, key.secret, "failover", "10"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    const records: [number, string][] = [];
    const errors: string[] = [];
    let libVersion = "";
    let debug = "";
    child.stderr!.on("data", (d: Buffer) => (debug += d.toString()));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const event = JSON.parse(line) as { record?: [number, string]; error?: string; librdkafka?: string };
      if (event.librdkafka) libVersion = event.librdkafka;
      if (event.record) records.push(event.record);
      if (event.error) errors.push(event.error);
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await eventually("the first five consumed", 30_000, async () => (records.length >= 5 ? true : undefined));

    // The leader dies: its lease expires and the other worker claims the partition, one epoch up.
    await first.kill();
    const after = await eventually("the partition moved", 30_000, async () => {
      const now = await leaseEpoch(ORG, "failover");
      return now.owner === second.id && second.ownedPartitions().length > 0 ? now : undefined;
    });
    expect(after.epoch).toBeGreaterThan(before.epoch);
    await produce([address(second)], "failover", ["r5", "r6", "r7", "r8", "r9"]);

    expect(await exited).toBe(0);
    expect(records).toEqual(Array.from({ length: 10 }, (_, i) => [i, `r${i}`]));
    expect(errors).toEqual([]);
    // librdkafka 2.1+ (KIP-320) reads leader epochs from Metadata v7+ and, seeing the epoch move,
    // validates its position with the new leader before fetching on. 2.0.2 (Debian's) asks for
    // Metadata v4, knows no epochs and goes straight on fetching.
    const [major, minor] = libVersion.split(".").map(Number);
    const validates = major! > 2 || (major === 2 && minor! >= 1);
    expect(debug.includes("Sent OffsetForLeaderEpochRequest")).toBe(validates);

    // The history came along in the partition directory: the old epoch ended where the new one began.
    const raw = await login(second);
    expect(await endOffsetFor(raw, 4, "failover", before.epoch, after.epoch)).toMatchObject({
      errorCode: 0,
      leaderEpoch: before.epoch,
      endOffset: 5n,
    });
    expect(await endOffsetFor(raw, 4, "failover", after.epoch, after.epoch)).toMatchObject({
      endOffset: 10n,
    });
    raw.close();
  });
});
