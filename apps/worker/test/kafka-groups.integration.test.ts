import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ErrorCode } from "@lastword/kafka-protocol";
import type { Consumer, ConsumerConfig, Kafka, KafkaConfig } from "kafkajs";
import { afterEach, describe, expect, it } from "vitest";
import { createKafkaKey, createNamedTopic, kcatProperties, kcatSasl, plainKafkajs } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// kafkajs 2.2.4 consumer groups against one worker (scenarios 18–20, 23 and 24 of
// shared/reference/kafka-protocol.md §5.2) and kcat -G. Offsets shared with REST consumer groups
// are packages/api's kafka-group-positions test (REST needs the api server).

const ORG_A = "org_groups_a";
const ORG_B = "org_groups_b";
type Key = { id: string; secret: string };
let keyB: Key;
const consumers: Consumer[] = [];
const children: ChildProcess[] = [];

function kafka(key: Key, extra: Partial<KafkaConfig> = {}): Kafka {
  return plainKafkajs(world.bootstrap, key, {
    clientId: "kafka-groups-test",
    retry: { retries: 3, initialRetryTime: 50 },
    ...extra,
  });
}

function consumer(key: Key, groupId: string, extra: Partial<ConsumerConfig> = {}): Consumer {
  const c = kafka(key).consumer({
    groupId,
    maxWaitTimeInMs: 100,
    sessionTimeout: 6000,
    heartbeatInterval: 500,
    retry: { retries: 3, initialRetryTime: 50 },
    ...extra,
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

// The world's key is A's.
const world = useKafkaWorld({ name: "kafka-groups", secret: "kafka-groups-secret" }, ORG_A, {
  topics: {
    events: 1,
    wide: 4,
    kill: 4,
    "admin-t": 2,
    "admin-n": 2,
    "admin-m": 1,
    "wide-commit": 4,
    scoped: 1,
    shared: 1,
    "kcat-t": 2,
  },
  partitions: 23,
  setup: async (h) => {
    await createNamedTopic(h.db.prisma, ORG_B, "shared", 1);
    const scopes = ["topics:read", "records:read", "records:write", "groups:read", "groups:write"] as const;
    keyB = await createKafkaKey(h.db.prisma, ORG_B, scopes);
  },
});

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.disconnect().catch(() => undefined)));
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

describe("kafkajs consumer groups", () => {
  it("18. fromBeginning reads everything and commits; a restart resumes from the commit; fromBeginning false reads only new records", async () => {
    await produce(world.key, "events", [
      { partition: 0, value: "a" },
      { partition: 0, value: "b" },
      { partition: 0, value: "c" },
    ]);
    const first = consumer(world.key, "g18");
    const one = await run(first, "events", true);
    await expect.poll(() => values(one), { timeout: 15_000 }).toEqual(["a", "b", "c"]);
    await first.disconnect();
    const admin = kafka(world.key).admin();
    await admin.connect();
    const committed = await admin.fetchOffsets({ groupId: "g18", topics: ["events"] });
    expect(committed).toEqual([
      { topic: "events", partitions: [{ partition: 0, offset: "3", metadata: null }] },
    ]);

    await produce(world.key, "events", [{ partition: 0, value: "d" }]);
    const two = await run(consumer(world.key, "g18"), "events", true);
    await expect.poll(() => values(two), { timeout: 15_000 }).toEqual(["d"]);

    const three = await run(consumer(world.key, "g18-new"), "events", false);
    // "Latest" is resolved before the first fetch: only then is a new record after it.
    await expect.poll(() => three.fetches, { timeout: 15_000 }).toBeGreaterThan(0);
    await produce(world.key, "events", [{ partition: 0, value: "e" }]);
    await expect.poll(() => values(three), { timeout: 15_000 }).toEqual(["e"]);
    await expect.poll(() => values(two), { timeout: 15_000 }).toEqual(["d", "e"]);
    await admin.disconnect();
  });

  it("19. two members on 4 partitions share them without overlap; after one leaves the other gets all four", async () => {
    const a = consumer(world.key, "g19");
    const b = consumer(world.key, "g19");
    const ra = await run(a, "wide", true);
    const rb = await run(b, "wide", true);
    await expect
      .poll(() => [latest(ra).length, latest(rb).length, new Set([...latest(ra), ...latest(rb)]).size], {
        timeout: 20_000,
      })
      .toEqual([2, 2, 4]);
    await produce(
      world.key,
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

  it("19. when B joins, A's heartbeat sees REBALANCE_IN_PROGRESS and the commit kafkajs makes then (PreparingRebalance, A's generation) is stored", async () => {
    const a = consumer(world.key, "g19-commit", { heartbeatInterval: 100 });
    const events: string[] = [];
    const commits: { generationId: number; offsets: string[] }[] = [];
    const assignments: number[][] = [];
    a.on(a.events.GROUP_JOIN, (e) => void assignments.push(e.payload.memberAssignment["wide-commit"] ?? []));
    a.on(a.events.REBALANCING, () => void events.push("rebalancing"));
    a.on(a.events.COMMIT_OFFSETS, (e) => {
      events.push("commit");
      const offsets = e.payload.topics.flatMap((t) => t.partitions.map((p) => `${p.partition}:${p.offset}`));
      commits.push({ generationId: e.payload.groupGenerationId, offsets });
    });
    let holding = false;
    await a.connect();
    await a.subscribe({ topic: "wide-commit", fromBeginning: true });
    await a.run({
      eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
        for (const m of batch.messages) resolveOffset(m.offset);
        holding = true;
        // A slow batch: resolved but not yet committed while A keeps heartbeating. The heartbeat
        // answered REBALANCE_IN_PROGRESS makes kafkajs commit what was resolved, then throws.
        for (const until = Date.now() + 20_000; Date.now() < until; ) {
          await heartbeat();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
    });
    await expect.poll(() => assignments.at(-1)?.length, { timeout: 15_000 }).toBe(4);
    const lease = await world.h.db.prisma.kafkaGroup.findUniqueOrThrow({
      where: { organizationId_groupId: { organizationId: ORG_A, groupId: "g19-commit" } },
    });
    await produce(world.key, "wide-commit", [
      { partition: 0, value: "c0" },
      { partition: 0, value: "c1" },
    ]);
    await expect.poll(() => holding, { timeout: 15_000 }).toBe(true);
    expect(commits).toEqual([]);

    const rb = await run(consumer(world.key, "g19-commit"), "wide-commit", true);
    await expect
      .poll(() => [assignments.at(-1)?.length, latest(rb).length], { timeout: 20_000 })
      .toEqual([2, 2]);
    // kafkajs committed under the generation A held, before it reported the rebalance and
    // rejoined: the commit was accepted while the group was preparing the next generation.
    expect(events.slice(0, 2)).toEqual(["commit", "rebalancing"]);
    expect(commits[0]).toEqual({ generationId: lease.generation, offsets: ["0:2"] });
    const stored = await world.h.db.prisma.consumerGroupOffset.findMany({
      where: { group: { organizationId: ORG_A, name: "g19-commit" }, partitionIndex: 0 },
    });
    expect(stored.map((o) => o.offset)).toEqual([2n]);
    // Whoever holds partition 0 now starts after the committed records.
    expect(rb.received).toEqual([]);
  });

  it("20. a member SIGKILLed without LeaveGroup expires after the session timeout; the other takes its partitions", async () => {
    const ra = await run(consumer(world.key, "g20"), "kill", false);
    await expect.poll(() => latest(ra), { timeout: 15_000 }).toEqual([0, 1, 2, 3]);
    const member = fileURLToPath(new URL("./kafkajs-member.mjs", import.meta.url));
    const child = spawn(
      process.execPath,
      [member, world.bootstrap, world.key.id, world.key.secret, "g20", "kill"],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
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
      world.key,
      "admin-t",
      [0, 0, 1].map((partition, i) => ({ partition, value: `x${i}` })),
    );
    const c = consumer(world.key, "g23");
    const r = await run(c, "admin-t", true);
    await expect.poll(() => r.received.length, { timeout: 15_000 }).toBe(3);
    const admin = kafka(world.key).admin();
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

  it("23. setOffsets and resetOffsets on a brand-new (Dead) group and an Empty one, refused while it is Stable; fetchOffsets without topics answers every committed topic", async () => {
    await produce(
      world.key,
      "admin-n",
      [0, 0, 1, 1].map((partition, i) => ({ partition, value: `n${i}` })),
    );
    await produce(world.key, "admin-m", [{ partition: 0, value: "m0" }]);
    const admin = kafka(world.key).admin();
    await admin.connect();
    const state = async () => (await admin.describeGroups(["g23-new"])).groups[0]!.state;
    const all = async () =>
      (await admin.fetchOffsets({ groupId: "g23-new" }))
        .map((t) => [t.topic, t.partitions.map((p) => `${p.partition}:${p.offset}`).sort()])
        .sort();
    expect(await state()).toBe("Dead");
    await admin.setOffsets({
      groupId: "g23-new",
      topic: "admin-n",
      partitions: [{ partition: 0, offset: "1" }],
    });
    await admin.resetOffsets({ groupId: "g23-new", topic: "admin-m", earliest: true });
    expect(await all()).toEqual([
      ["admin-m", ["0:-2"]],
      ["admin-n", ["0:1"]],
    ]);

    const c = consumer(world.key, "g23-new");
    const r = await run(c, "admin-n", true);
    // Partition 0 from the offset set above, partition 1 from the start.
    await expect.poll(() => values(r).sort(), { timeout: 15_000 }).toEqual(["n1", "n2", "n3"]);
    expect(await state()).toBe("Stable");
    await expect(
      admin.setOffsets({ groupId: "g23-new", topic: "admin-n", partitions: [{ partition: 0, offset: "0" }] }),
    ).rejects.toThrow("The consumer group must have no running instances, current state: Stable");
    await expect(
      admin.resetOffsets({ groupId: "g23-new", topic: "admin-n", earliest: true }),
    ).rejects.toThrow("current state: Stable");
    await expect.poll(all, { timeout: 10_000 }).toEqual([
      ["admin-m", ["0:-2"]],
      ["admin-n", ["0:2", "1:2"]],
    ]);

    await c.disconnect();
    await expect.poll(state, { timeout: 10_000 }).toBe("Empty");
    await admin.resetOffsets({ groupId: "g23-new", topic: "admin-n", earliest: false });
    expect(await all()).toEqual([
      ["admin-m", ["0:-2"]],
      ["admin-n", ["0:-1", "1:-1"]],
    ]);
    await admin.disconnect();
  });

  it("24. the same group id in two tenants forms two independent groups", async () => {
    await produce(world.key, "shared", [{ partition: 0, value: "from-a" }]);
    await produce(keyB, "shared", [{ partition: 0, value: "from-b" }]);
    const ra = await run(consumer(world.key, "same"), "shared", true);
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

  it("24. DescribeGroups and DeleteGroups stay within the key's tenant: B neither sees nor deletes A's group, and deleting its own same-named group leaves A's", async () => {
    await produce(world.key, "scoped", [{ partition: 0, value: "a0" }]);
    const memberA = consumer(world.key, "scoped-g");
    const ra = await run(memberA, "scoped", true);
    await expect.poll(() => values(ra), { timeout: 15_000 }).toEqual(["a0"]);
    const adminA = kafka(world.key).admin();
    const adminB = kafka(keyB).admin();
    await Promise.all([adminA.connect(), adminB.connect()]);
    const describe = async (admin: typeof adminA, groupId: string) =>
      (await admin.describeGroups([groupId])).groups[0]!;
    const described = await describe(adminA, "scoped-g");
    expect(described).toMatchObject({ state: "Stable", protocolType: "consumer" });

    // B asks for A's group id: its own tenant has none.
    expect(await describe(adminB, "scoped-g")).toMatchObject({ state: "Dead", members: [] });
    await expect(adminB.deleteGroups(["scoped-g"])).rejects.toMatchObject({
      groups: [expect.objectContaining({ groupId: "scoped-g", errorCode: ErrorCode.GROUP_ID_NOT_FOUND })],
    });

    // B's own group of that id: its member only, and deleting it once empty touches nothing of A's.
    await produce(keyB, "shared", [{ partition: 0, value: "b-scoped" }]);
    const memberB = consumer(keyB, "scoped-g");
    const rb = await run(memberB, "shared", true);
    await expect.poll(() => values(rb).includes("b-scoped"), { timeout: 15_000 }).toBe(true);
    const ofB = await describe(adminB, "scoped-g");
    expect(ofB.state).toBe("Stable");
    expect(ofB.members.map((m) => m.memberId)).not.toContain(described.members[0]!.memberId);
    await memberB.disconnect();
    await expect
      .poll(async () => (await describe(adminB, "scoped-g")).state, { timeout: 10_000 })
      .toBe("Empty");
    await adminB.deleteGroups(["scoped-g"]);
    expect((await describe(adminB, "scoped-g")).state).toBe("Dead");
    expect(await describe(adminA, "scoped-g")).toMatchObject({
      state: "Stable",
      members: [expect.objectContaining({ memberId: described.members[0]!.memberId })],
    });
    expect(await adminA.fetchOffsets({ groupId: "scoped-g", topics: ["scoped"] })).toEqual([
      { topic: "scoped", partitions: [{ partition: 0, offset: "1", metadata: null }] },
    ]);
    await Promise.all([adminA.disconnect(), adminB.disconnect()]);
  });
});

describe("kcat -G", () => {
  it("consumes a topic as a group member over SASL PLAIN and commits its offsets", async () => {
    await produce(
      world.key,
      "kcat-t",
      [0, 1, 0, 1].map((partition, i) => ({ partition, value: `k${i}` })),
    );
    const child = spawn(
      "kcat",
      [
        ...kcatSasl(world.bootstrap, world.key),
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
            await world.h.db.prisma.consumerGroupOffset.findMany({
              where: { group: { organizationId: ORG_A, name: "g-kcat" } },
              orderBy: { partitionIndex: "asc" },
            })
          ).map((o) => Number(o.offset)),
        { timeout: 15_000 },
      )
      .toEqual([2, 2]);
  });
});
