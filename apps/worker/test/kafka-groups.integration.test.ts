import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ErrorCode } from "@lastword/kafka-protocol";
import { type Consumer, Kafka, type KafkaConfig, logLevel } from "kafkajs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createKafkaKey, createNamedTopic, kcatProperties, kcatSasl, startKafkaWorker } from "./kafka-client";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// kafkajs 2.2.4 consumer groups against one worker (scenarios 18–20, 23 and 24 of
// shared/reference/kafka-protocol.md §5.2) and kcat -G. Offsets shared with REST consumer groups
// are packages/api's kafka-group-positions test (REST needs the api server).

let h: WorkerHarness;
let bootstrap: string;
const ORG_A = "org_groups_a";
const ORG_B = "org_groups_b";
type Key = { id: string; secret: string };
let keyA: Key;
let keyB: Key;
const consumers: Consumer[] = [];
const children: ChildProcess[] = [];

function kafka(key: Key, extra: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({
    brokers: [bootstrap],
    clientId: "kafka-groups-test",
    sasl: { mechanism: "plain", username: key.id, password: key.secret },
    connectionTimeout: 3000,
    retry: { retries: 3, initialRetryTime: 50 },
    logLevel: logLevel.NOTHING,
    ...extra,
  });
}

function consumer(key: Key, groupId: string): Consumer {
  const c = kafka(key).consumer({
    groupId,
    maxWaitTimeInMs: 100,
    sessionTimeout: 6000,
    heartbeatInterval: 500,
    retry: { retries: 3, initialRetryTime: 50 },
  });
  consumers.push(c);
  return c;
}

interface Running {
  received: { partition: number; offset: string; value: string }[];
  /** The partitions of `topic` this member was given, one entry per generation it joined. */
  assignments: number[][];
  /** Partitions of records received while not assigned to this member (must stay empty). */
  outsideAssignment: number[];
  /** Fetch rounds completed (the start offsets are resolved before the first). */
  fetches: number;
}

async function run(c: Consumer, topic: string, fromBeginning: boolean): Promise<Running> {
  const running: Running = { received: [], assignments: [], outsideAssignment: [], fetches: 0 };
  c.on(c.events.FETCH, () => {
    running.fetches += 1;
  });
  c.on(c.events.GROUP_JOIN, (e) => {
    const assigned = (e.payload.memberAssignment[topic] ?? []) as number[];
    running.assignments.push([...assigned].sort());
  });
  await c.connect();
  await c.subscribe({ topic, fromBeginning });
  await c.run({
    eachMessage: async ({ partition, message }) => {
      // A member only ever reads partitions of the assignment it holds at that moment (an expect
      // here would be swallowed by kafkajs's retry, so the test asserts the list is empty).
      if (!running.assignments.at(-1)?.includes(partition)) running.outsideAssignment.push(partition);
      running.received.push({ partition, offset: message.offset, value: message.value?.toString() ?? "" });
    },
  });
  return running;
}

async function produce(key: Key, topic: string, messages: { partition: number; value: string }[]) {
  const p = kafka(key).producer({ allowAutoTopicCreation: false });
  await p.connect();
  await p.send({ topic, messages });
  await p.disconnect();
}

const values = (r: Running) => r.received.map((m) => m.value);
const latest = (r: Running) => r.assignments.at(-1) ?? [];

beforeAll(async () => {
  h = await openWorkerHarness({ name: "kafka-groups", secret: "kafka-groups-secret" });
  await createNamedTopic(h.db.prisma, ORG_A, "events", 1);
  await createNamedTopic(h.db.prisma, ORG_A, "wide", 4);
  await createNamedTopic(h.db.prisma, ORG_A, "kill", 4);
  await createNamedTopic(h.db.prisma, ORG_A, "admin-t", 2);
  await createNamedTopic(h.db.prisma, ORG_A, "shared", 1);
  await createNamedTopic(h.db.prisma, ORG_B, "shared", 1);
  await createNamedTopic(h.db.prisma, ORG_A, "kcat-t", 2);
  const scopes = ["topics:read", "records:read", "records:write", "groups:read", "groups:write"] as const;
  keyA = await createKafkaKey(h.db.prisma, ORG_A, scopes);
  keyB = await createKafkaKey(h.db.prisma, ORG_B, scopes);
  ({ bootstrap } = await startKafkaWorker(h, 16));
});

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.disconnect().catch(() => undefined)));
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

afterAll(async () => {
  await h?.close();
});

describe("kafkajs consumer groups", () => {
  it("18. fromBeginning reads everything and commits; a restart resumes from the commit; fromBeginning false reads only new records", async () => {
    await produce(keyA, "events", [
      { partition: 0, value: "a" },
      { partition: 0, value: "b" },
      { partition: 0, value: "c" },
    ]);
    const first = consumer(keyA, "g18");
    const one = await run(first, "events", true);
    await expect.poll(() => values(one), { timeout: 15_000 }).toEqual(["a", "b", "c"]);
    await first.disconnect();
    const admin = kafka(keyA).admin();
    await admin.connect();
    const committed = await admin.fetchOffsets({ groupId: "g18", topics: ["events"] });
    expect(committed).toEqual([
      { topic: "events", partitions: [{ partition: 0, offset: "3", metadata: null }] },
    ]);

    await produce(keyA, "events", [{ partition: 0, value: "d" }]);
    const two = await run(consumer(keyA, "g18"), "events", true);
    await expect.poll(() => values(two), { timeout: 15_000 }).toEqual(["d"]);

    const three = await run(consumer(keyA, "g18-new"), "events", false);
    // "Latest" is resolved before the first fetch: only then is a new record after it.
    await expect.poll(() => three.fetches, { timeout: 15_000 }).toBeGreaterThan(0);
    await produce(keyA, "events", [{ partition: 0, value: "e" }]);
    await expect.poll(() => values(three), { timeout: 15_000 }).toEqual(["e"]);
    await expect.poll(() => values(two), { timeout: 15_000 }).toEqual(["d", "e"]);
    await admin.disconnect();
  });

  it("19. two members on 4 partitions share them without overlap; after one leaves the other gets all four", async () => {
    const a = consumer(keyA, "g19");
    const b = consumer(keyA, "g19");
    const ra = await run(a, "wide", true);
    const rb = await run(b, "wide", true);
    await expect
      .poll(() => [latest(ra).length, latest(rb).length, new Set([...latest(ra), ...latest(rb)]).size], {
        timeout: 20_000,
      })
      .toEqual([2, 2, 4]);
    await produce(
      keyA,
      "wide",
      [0, 1, 2, 3].map((partition) => ({ partition, value: `w${partition}` })),
    );
    await expect
      .poll(() => [...values(ra), ...values(rb)].sort(), { timeout: 15_000 })
      .toEqual(["w0", "w1", "w2", "w3"]);
    // Each record was read once, by the member whose assignment held its partition, and by no other.
    expect([...ra.received, ...rb.received]).toHaveLength(4);
    for (const m of ra.received) expect(latest(rb)).not.toContain(m.partition);
    for (const m of rb.received) expect(latest(ra)).not.toContain(m.partition);
    expect([...ra.outsideAssignment, ...rb.outsideAssignment]).toEqual([]);
    await b.disconnect();
    await expect.poll(() => latest(ra), { timeout: 20_000 }).toEqual([0, 1, 2, 3]);
  });

  it("20. a member SIGKILLed without LeaveGroup expires after the session timeout; the other takes its partitions", async () => {
    const ra = await run(consumer(keyA, "g20"), "kill", false);
    await expect.poll(() => latest(ra), { timeout: 15_000 }).toEqual([0, 1, 2, 3]);
    const member = fileURLToPath(new URL("./kafkajs-member.mjs", import.meta.url));
    const child = spawn(process.execPath, [member, bootstrap, keyA.id, keyA.secret, "g20", "kill"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    const childAssignments: number[][] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => {
      childAssignments.push((JSON.parse(line) as { partitions: number[] }).partitions.sort());
    });
    await expect
      .poll(() => [latest(ra).length, childAssignments.at(-1)?.length], { timeout: 20_000 })
      .toEqual([2, 2]);
    expect(new Set([...latest(ra), ...childAssignments.at(-1)!]).size).toBe(4);
    const generationsBefore = ra.assignments.length;
    child.kill("SIGKILL");
    await once(child, "exit");
    await expect
      .poll(() => (ra.assignments.length > generationsBefore ? latest(ra) : null), { timeout: 20_000 })
      .toEqual([0, 1, 2, 3]);
  });

  it("23. admin: fetchOffsets, setOffsets and resetOffsets on an Empty group; listGroups, describeGroups, deleteGroups", async () => {
    await produce(
      keyA,
      "admin-t",
      [0, 0, 1].map((partition, i) => ({ partition, value: `x${i}` })),
    );
    const c = consumer(keyA, "g23");
    const r = await run(c, "admin-t", true);
    await expect.poll(() => r.received.length, { timeout: 15_000 }).toBe(3);
    const admin = kafka(keyA).admin();
    await admin.connect();
    const described = await admin.describeGroups(["g23"]);
    expect(described.groups[0]).toMatchObject({ groupId: "g23", state: "Stable", protocolType: "consumer" });
    expect(described.groups[0]!.members).toHaveLength(1);
    await expect(admin.deleteGroups(["g23"])).rejects.toMatchObject({
      groups: [expect.objectContaining({ groupId: "g23", errorCode: ErrorCode.NON_EMPTY_GROUP })],
    });
    await c.disconnect();
    await expect
      .poll(async () => (await admin.describeGroups(["g23"])).groups[0]!.state, { timeout: 10_000 })
      .toBe("Empty");
    const fetched = async () =>
      (await admin.fetchOffsets({ groupId: "g23", topics: ["admin-t"] }))[0]!.partitions
        .map((p) => [p.partition, p.offset])
        .sort();
    expect(await fetched()).toEqual([
      [0, "2"],
      [1, "1"],
    ]);
    await admin.setOffsets({ groupId: "g23", topic: "admin-t", partitions: [{ partition: 0, offset: "1" }] });
    await expect.poll(fetched, { timeout: 10_000 }).toEqual([
      [0, "1"],
      [1, "1"],
    ]);
    await admin.resetOffsets({ groupId: "g23", topic: "admin-t", earliest: true });
    await expect.poll(fetched, { timeout: 10_000 }).toEqual([
      [0, "-2"],
      [1, "-2"],
    ]);
    const listed = await admin.listGroups();
    expect(listed.groups.map((g) => g.groupId)).toContain("g23");
    await admin.deleteGroups(["g23"]);
    expect((await admin.listGroups()).groups.map((g) => g.groupId)).not.toContain("g23");
    expect((await admin.describeGroups(["g23"])).groups[0]!.state).toBe("Dead");
    await admin.disconnect();
  });

  it("24. the same group id in two tenants forms two independent groups", async () => {
    await produce(keyA, "shared", [{ partition: 0, value: "from-a" }]);
    await produce(keyB, "shared", [{ partition: 0, value: "from-b" }]);
    const ra = await run(consumer(keyA, "same"), "shared", true);
    const rb = await run(consumer(keyB, "same"), "shared", true);
    await expect.poll(() => [values(ra), values(rb)], { timeout: 15_000 }).toEqual([["from-a"], ["from-b"]]);
    // Each is the only member of its own group: both hold partition 0 at once.
    expect([latest(ra), latest(rb)]).toEqual([[0], [0]]);
    const adminB = kafka(keyB).admin();
    await adminB.connect();
    const groupsB = (await adminB.listGroups()).groups.map((g) => g.groupId);
    expect(groupsB).toEqual(["same"]);
    await adminB.disconnect();
  });
});

describe("kcat -G", () => {
  it("consumes a topic as a group member over SASL PLAIN and commits its offsets", async () => {
    await produce(
      keyA,
      "kcat-t",
      [0, 1, 0, 1].map((partition, i) => ({ partition, value: `k${i}` })),
    );
    const child = spawn(
      "kcat",
      [
        ...kcatSasl(bootstrap, keyA),
        ...kcatProperties({
          "auto.offset.reset": "earliest",
          "auto.commit.interval.ms": 200,
          "session.timeout.ms": 6000,
          "fetch.wait.max.ms": 100,
        }),
        "-u",
        "-G",
        "g-kcat",
        "kcat-t",
        "-f",
        "%p:%s\\n",
        "-q",
      ],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    children.push(child);
    const lines: string[] = [];
    createInterface({ input: child.stdout! }).on("line", (line) => lines.push(line));
    await expect.poll(() => [...lines].sort(), { timeout: 30_000 }).toEqual(["0:k0", "0:k2", "1:k1", "1:k3"]);
    await expect
      .poll(
        async () =>
          (
            await h.db.prisma.consumerGroupOffset.findMany({
              where: { group: { organizationId: ORG_A, name: "g-kcat" } },
              orderBy: { partitionIndex: "asc" },
            })
          ).map((o) => Number(o.offset)),
        { timeout: 15_000 },
      )
      .toEqual([2, 2]);
  });
});
