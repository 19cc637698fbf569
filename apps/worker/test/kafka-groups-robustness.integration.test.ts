import { type Consumer, Kafka, logLevel } from "kafkajs";
import { afterEach, describe, expect, it } from "vitest";
import { TestFaults } from "../src/kafka/test-faults";
import { useKafkaWorld } from "./kafka-world";

// kafkajs 2.2.4 scenarios 21 (seek, pause/resume, eachBatch with manual resolveOffset), 22
// (OFFSET_OUT_OF_RANGE: kafkajs commits -2/-1 and resumes) and 31 (one injected fault per API:
// NOT_LEADER on Produce, REBALANCE_IN_PROGRESS on Heartbeat, NOT_COORDINATOR on OffsetCommit,
// a 500 ms throttle on Fetch) of shared/reference/kafka-protocol.md §5.2.

const ORG = "org_groups_robust";
const faults = new TestFaults([]);
/** kafkajs's own log lines (debug level), to see what it decided. */
const clientLog: string[] = [];
const consumers: Consumer[] = [];

function kafka(): Kafka {
  return new Kafka({
    brokers: [world.bootstrap],
    clientId: "robustness-test",
    sasl: { mechanism: "plain", username: world.key.id, password: world.key.secret },
    retry: { retries: 5, initialRetryTime: 50 },
    logLevel: logLevel.DEBUG,
    logCreator: () => (entry) => void clientLog.push(entry.log.message),
  });
}

function consumer(groupId: string): Consumer {
  const c = kafka().consumer({ groupId, maxWaitTimeInMs: 100, sessionTimeout: 6000, heartbeatInterval: 300 });
  consumers.push(c);
  return c;
}

async function produce(topic: string, values: string[]): Promise<void> {
  const p = kafka().producer({ allowAutoTopicCreation: false });
  await p.connect();
  await p.send({ topic, acks: -1, messages: values.map((value) => ({ partition: 0, key: value, value })) });
  await p.disconnect();
}

async function committed(group: string, topic: string): Promise<bigint | undefined> {
  const row = await world.h.db.prisma.consumerGroupOffset.findFirst({
    where: { group: { organizationId: ORG, name: group }, topic: { name: topic }, partitionIndex: 0 },
  });
  return row?.offset;
}

const world = useKafkaWorld({ name: "kafka-groups-robust", secret: "kafka-groups-robust-secret" }, ORG, {
  topics: { "seek-t": 1, "batch-t": 1, "oor-early": 1, "oor-late": 1, faulty: 1 },
  worker: { kafka: { testFaults: faults } },
});

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.disconnect().catch(() => undefined)));
});

describe("21. seek, pause/resume, eachBatch", () => {
  it("seek commits at once (seen while paused); resume reads from the sought offset", async () => {
    await produce("seek-t", ["s0", "s1", "s2", "s3", "s4"]);
    const c = consumer("g-seek");
    const received: string[] = [];
    await c.connect();
    await c.subscribe({ topic: "seek-t", fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => void received.push(message.value!.toString()) });
    await expect.poll(() => committed("g-seek", "seek-t"), { timeout: 15_000 }).toBe(5n);
    c.pause([{ topic: "seek-t" }]);
    c.seek({ topic: "seek-t", partition: 0, offset: "2" });
    // Paused, nothing is fetched, so the 2 can only come from the seek's own commit.
    await expect.poll(() => committed("g-seek", "seek-t"), { timeout: 10_000 }).toBe(2n);
    expect(received).toEqual(["s0", "s1", "s2", "s3", "s4"]);
    c.resume([{ topic: "seek-t" }]);
    await expect.poll(() => received.slice(5), { timeout: 10_000 }).toEqual(["s2", "s3", "s4"]);
    await expect.poll(() => committed("g-seek", "seek-t"), { timeout: 10_000 }).toBe(5n);
  });

  it("eachBatch with manual resolveOffset commits what was resolved; the unresolved rest comes again", async () => {
    await produce("batch-t", ["b0", "b1", "b2", "b3", "b4"]);
    const c = consumer("g-batch");
    const batches: string[][] = [];
    await c.connect();
    await c.subscribe({ topic: "batch-t", fromBeginning: true });
    await c.run({
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
        batches.push(batch.messages.map((m) => m.value!.toString()));
        // The first batch resolves only up to offset 2; every later one resolves all it got.
        const limit = batches.length === 1 ? 2n : BigInt(Number.MAX_SAFE_INTEGER);
        for (const m of batch.messages) if (BigInt(m.offset) <= limit) resolveOffset(m.offset);
        await heartbeat();
      },
    });
    await expect.poll(() => committed("g-batch", "batch-t"), { timeout: 15_000 }).toBe(5n);
    expect(batches[0]).toEqual(["b0", "b1", "b2", "b3", "b4"]);
    expect(batches.slice(1).flat()).toEqual(["b3", "b4"]);
  });
});

describe("22. OFFSET_OUT_OF_RANGE", () => {
  it("a commit past the high watermark: kafkajs commits -2 / -1, OffsetFetch returns them, and it resumes at earliest / latest", async () => {
    // oor-early stays empty until kafkajs has reset, so its -2 stays visible; oor-late has data.
    await produce("oor-late", ["l0", "l1", "l2"]);
    const admin = kafka().admin();
    await admin.connect();
    for (const [groupId, topic] of [
      ["g-early", "oor-early"],
      ["g-late", "oor-late"],
    ] as const) {
      await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: "100" }] });
    }
    const start = async (groupId: string, topic: string, fromBeginning: boolean) => {
      const c = consumer(groupId);
      const received: string[] = [];
      await c.connect();
      await c.subscribe({ topic, fromBeginning });
      await c.run({ eachMessage: async ({ message }) => void received.push(message.value!.toString()) });
      return received;
    };
    const early = await start("g-early", "oor-early", true);
    const late = await start("g-late", "oor-late", false);
    // kafkajs stored -2 (earliest) and -1 (latest), and OffsetFetch answers them as stored.
    await expect.poll(() => committed("g-early", "oor-early"), { timeout: 15_000 }).toBe(-2n);
    await expect.poll(() => committed("g-late", "oor-late"), { timeout: 15_000 }).toBe(-1n);
    for (const [groupId, topic, offset] of [
      ["g-early", "oor-early", "-2"],
      ["g-late", "oor-late", "-1"],
    ] as const) {
      const fetched = await admin.fetchOffsets({ groupId, topics: [topic] });
      expect(fetched[0]!.partitions[0]).toMatchObject({ partition: 0, offset });
    }
    // Consumption resumes: at the start of the log for one, after the old records for the other.
    await produce("oor-early", ["e0", "e1", "e2"]);
    await expect.poll(() => early, { timeout: 15_000 }).toEqual(["e0", "e1", "e2"]);
    await expect.poll(() => committed("g-early", "oor-early"), { timeout: 10_000 }).toBe(3n);
    await produce("oor-late", ["l3"]);
    await expect.poll(() => late, { timeout: 15_000 }).toEqual(["l3"]);
    await expect.poll(() => committed("g-late", "oor-late"), { timeout: 10_000 }).toBe(4n);
    await admin.disconnect();
  });
});

describe("31. one injected fault per API", () => {
  it("kafkajs retries a NOT_LEADER produce, rejoins on REBALANCE_IN_PROGRESS, re-finds the coordinator on NOT_COORDINATOR, and honours a Fetch throttle", async () => {
    // Produce: the first attempt is answered NOT_LEADER_OR_FOLLOWER (6) without an append.
    faults.arm({ api: "Produce", errorCode: 6 });
    await produce("faulty", ["f0"]);
    expect(faults.armed).toEqual([]);

    const c = consumer("g-faulty");
    const joins: number[] = [];
    const received: string[] = [];
    c.on(c.events.GROUP_JOIN, (e) => void joins.push(e.payload.groupId === "g-faulty" ? 1 : 0));
    await c.connect();
    await c.subscribe({ topic: "faulty", fromBeginning: true });
    await c.run({ eachMessage: async ({ message }) => void received.push(message.value!.toString()) });
    await expect.poll(() => received, { timeout: 15_000 }).toEqual(["f0"]);
    await expect.poll(() => committed("g-faulty", "faulty"), { timeout: 10_000 }).toBe(1n);
    // The record was appended once: the NOT_LEADER answer appended nothing.
    const offsets = await kafka().admin();
    await offsets.connect();
    expect((await offsets.fetchTopicOffsets("faulty"))[0]).toMatchObject({ low: "0", high: "1" });
    await offsets.disconnect();

    // Heartbeat: 27 makes kafkajs rejoin (a second GROUP_JOIN).
    faults.arm({ api: "Heartbeat", errorCode: 27 });
    await expect.poll(() => joins.length, { timeout: 15_000 }).toBe(2);
    expect(faults.armed).toEqual([]);

    // OffsetCommit: 16 makes kafkajs look the coordinator up again and commit there.
    faults.arm({ api: "OffsetCommit", errorCode: 16 });
    await produce("faulty", ["f1"]);
    await expect.poll(() => committed("g-faulty", "faulty"), { timeout: 15_000 }).toBe(2n);
    expect(faults.armed).toEqual([]);
    // At least once: the batch whose commit failed may be handed over again.
    expect([...new Set(received)]).toEqual(["f0", "f1"]);

    // Fetch: throttle_time_ms 500, which kafkajs applies to that connection before its next request.
    faults.arm({ api: "Fetch", throttleTimeMs: 500 });
    await expect.poll(() => faults.armed.length, { timeout: 10_000 }).toBe(0);
    await expect
      .poll(() => clientLog.some((line) => line === "Client side throttling in effect for 500ms"), {
        timeout: 5_000,
      })
      .toBe(true);
    await produce("faulty", ["f2"]);
    await expect.poll(() => [...new Set(received)], { timeout: 15_000 }).toEqual(["f0", "f1", "f2"]);
  });
});
