import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { type Consumer, Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestFaults } from "../src/kafka/test-faults";
import type { RunningWorker } from "../src/worker";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic, RawKafka } from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// The group coordinator across two workers: one lease per (tenant, group), NOT_COORDINATOR from
// the other worker, the classic protocol's error codes on raw frames, offset writes fenced by the
// lease, and a coordinator failover that kafkajs follows with generations numbered on.

const LEASE_TTL_MS = 2_000;
const ORG = "org_coord";
let h: WorkerHarness;
let w1: RunningWorker;
let w2: RunningWorker;
let key: { id: string; secret: string };
/** w1's test hooks (a commit's write held while the test moves the lease). */
const faults = new TestFaults([]);

function raw(worker: RunningWorker): Promise<RawKafka> {
  return RawKafka.login(worker.kafka!, key);
}

const consumerProtocol = [{ name: "range", metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0, 0]) }];
const join = (groupId: string, memberId: string) => ({
  groupId,
  sessionTimeoutMs: 6000,
  rebalanceTimeoutMs: 3000,
  memberId,
  protocolType: "consumer",
  protocols: consumerProtocol,
});

beforeAll(async () => {
  h = await openWorkerHarness({ name: "kafka-coord", secret: "kafka-coord-secret", ownerWaitMs: 15_000 });
  await createNamedTopic(h.db.prisma, ORG, "moving", 2);
  key = await createKafkaKey(h.db.prisma, ORG, CLIENT_SCOPES);
  const config = { kafka: { host: "127.0.0.1", port: 0 }, claimIntervalMs: 100, leaseTtlMs: LEASE_TTL_MS };
  w1 = await h.startWorker({ ...config, kafka: { ...config.kafka, testFaults: faults } });
  w2 = await h.startWorker(config);
});

afterAll(async () => {
  await h?.close();
});

describe("coordinator ownership", () => {
  it("FindCoordinator v4 (batched) claims the groups for the worker asked; the other worker names it and answers NOT_COORDINATOR", async () => {
    const c1 = await raw(w1);
    const found = await c1.call(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ["ga", "gb"] });
    expect(found.coordinators).toEqual([
      expect.objectContaining({ key: "ga", nodeId: w1.kafka!.nodeId, port: w1.kafka!.port, errorCode: 0 }),
      expect.objectContaining({ key: "gb", nodeId: w1.kafka!.nodeId, port: w1.kafka!.port, errorCode: 0 }),
    ]);
    const c2 = await raw(w2);
    const v0 = await c2.call(ApiKey.FindCoordinator, 0, { key: "ga" });
    expect(v0).toMatchObject({ errorCode: 0, nodeId: w1.kafka!.nodeId, port: w1.kafka!.port });
    const elsewhere = await c2.call(ApiKey.JoinGroup, 5, join("ga", ""));
    expect(elsewhere.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    const fetched = await c2.call(ApiKey.OffsetFetch, 7, { groupId: "ga", topics: null });
    expect(fetched.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    const rows = await h.db.prisma.kafkaGroup.findMany({
      where: { organizationId: ORG },
      orderBy: { groupId: "asc" },
    });
    expect(rows.map((r) => [r.groupId, r.ownerWorkerId])).toEqual([
      ["ga", w1.id],
      ["gb", w1.id],
    ]);
    c1.close();
    c2.close();
  });

  it("32. both workers advertise identical ApiVersions (OffsetDelete included), and the coordinator FindCoordinator names is a broker in either's Metadata", async () => {
    const versions = async (w: RunningWorker) => {
      const conn = await RawKafka.open(w.kafka!.host, w.kafka!.port);
      const answer = await conn.call(ApiKey.ApiVersions, 3, {
        clientSoftwareName: "raw-test",
        clientSoftwareVersion: "1",
      });
      conn.close();
      return answer.apiKeys;
    };
    const [v1, v2] = [await versions(w1), await versions(w2)];
    expect(v1).toEqual(v2);
    expect(v1).toContainEqual(
      expect.objectContaining({ apiKey: ApiKey.OffsetDelete, minVersion: 0, maxVersion: 0 }),
    );
    const c2 = await raw(w2);
    const found = await c2.call(ApiKey.FindCoordinator, 3, { key: "gmeta", keyType: 0 });
    expect(found.errorCode).toBe(0);
    for (const w of [w1, w2]) {
      const conn = await raw(w);
      const meta = await conn.call(ApiKey.Metadata, 12, {
        topics: null,
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      expect(meta.brokers).toContainEqual(
        expect.objectContaining({ nodeId: found.nodeId, host: found.host, port: found.port }),
      );
      conn.close();
    }
    c2.close();
  });

  it("the classic protocol's errors: MEMBER_ID_REQUIRED, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS", async () => {
    const a = await raw(w1);
    await a.call(ApiKey.FindCoordinator, 3, { key: "graw", keyType: 0 });
    const first = await a.call(ApiKey.JoinGroup, 5, join("graw", ""));
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(first.memberId).not.toBe("");
    const joined = await a.call(ApiKey.JoinGroup, 5, join("graw", first.memberId));
    expect(joined).toMatchObject({
      errorCode: 0,
      generationId: 1,
      leader: first.memberId,
      protocolName: "range",
    });
    expect(joined.members.map((m) => m.memberId)).toEqual([first.memberId]);
    const synced = await a.call(ApiKey.SyncGroup, 3, {
      groupId: "graw",
      generationId: 1,
      memberId: first.memberId,
      assignments: [{ memberId: first.memberId, assignment: Buffer.from("mine") }],
    });
    expect(synced).toMatchObject({ errorCode: 0 });
    expect(Buffer.from(synced.assignment).toString()).toBe("mine");
    const hb = (generationId: number, memberId = first.memberId) =>
      a.call(ApiKey.Heartbeat, 3, { groupId: "graw", generationId, memberId });
    expect((await hb(1)).errorCode).toBe(0);
    expect((await hb(7)).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await hb(1, "nobody")).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // An admin commit while the group has a member is refused, a member commit with a stale generation too.
    const commit = (memberId: string, generation: number) =>
      a.call(ApiKey.OffsetCommit, 7, {
        groupId: "graw",
        generationIdOrMemberEpoch: generation,
        memberId,
        topics: [
          {
            name: "moving",
            partitions: [{ partitionIndex: 0, committedOffset: 5n, committedMetadata: "m" }],
          },
        ],
      });
    expect((await commit("", -1)).topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await commit(first.memberId, 0)).topics[0]!.partitions[0]!.errorCode).toBe(
      ErrorCode.ILLEGAL_GENERATION,
    );
    expect((await commit(first.memberId, 1)).topics[0]!.partitions[0]!.errorCode).toBe(0);

    // A second member (v3: no member id round trip) starts a rebalance the first learns of by heartbeat.
    const b = await raw(w1);
    const second = b.call(ApiKey.JoinGroup, 3, join("graw", ""));
    await expect.poll(async () => (await hb(1)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoined = await a.call(ApiKey.JoinGroup, 5, join("graw", first.memberId));
    const other = await second;
    expect(rejoined).toMatchObject({ errorCode: 0, generationId: 2, leader: first.memberId });
    expect(rejoined.members).toHaveLength(2);
    expect(other).toMatchObject({ errorCode: 0, generationId: 2, leader: first.memberId, members: [] });

    const fetched = await a.call(ApiKey.OffsetFetch, 8, { groups: [{ groupId: "graw", topics: null }] });
    expect(fetched.groups[0]!.topics).toEqual([
      {
        name: "moving",
        partitions: [expect.objectContaining({ partitionIndex: 0, committedOffset: 5n, metadata: "m" })],
      },
    ]);
    const left = await a.call(ApiKey.LeaveGroup, 4, {
      groupId: "graw",
      members: [{ memberId: first.memberId }, { memberId: other.memberId }, { memberId: "nobody" }],
    });
    expect(left.members.map((m) => m.errorCode)).toEqual([0, 0, ErrorCode.UNKNOWN_MEMBER_ID]);
    const described = await a.call(ApiKey.DescribeGroups, 5, {
      groups: ["graw"],
      includeAuthorizedOperations: false,
    });
    expect(described.groups[0]).toMatchObject({ errorCode: 0, groupState: "Empty" });
    a.close();
    b.close();
  });
});

describe("offset writes fenced by the lease", () => {
  it("a member's commit whose lease moves between its checks and its write changes nothing and is answered NOT_COORDINATOR", async () => {
    const a = await raw(w1);
    await a.call(ApiKey.FindCoordinator, 3, { key: "gfence", keyType: 0 });
    const joined = await a.call(ApiKey.JoinGroup, 3, join("gfence", ""));
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1 });
    await a.call(ApiKey.SyncGroup, 3, {
      groupId: "gfence",
      generationId: 1,
      memberId: joined.memberId,
      assignments: [],
    });
    const commit = (committedOffset: bigint) =>
      a.call(ApiKey.OffsetCommit, 7, {
        groupId: "gfence",
        generationIdOrMemberEpoch: 1,
        memberId: joined.memberId,
        topics: [
          { name: "moving", partitions: [{ partitionIndex: 0, committedOffset, committedMetadata: null }] },
        ],
      });
    const stored = async () =>
      (
        await h.db.prisma.consumerGroupOffset.findFirst({
          where: { group: { organizationId: ORG, name: "gfence" } },
        })
      )?.offset;
    expect((await commit(3n)).topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect(await stored()).toBe(3n);

    // The next commit passes every check on w1; before its write, w2 takes the lease over (as
    // claimExpired does once w1's lease lapsed).
    let moved = false;
    faults.onNextOffsetWrite(async () => {
      await h.db.prisma.$executeRaw`
        UPDATE "KafkaGroup" SET "ownerWorkerId" = ${w2.id}, "epoch" = "epoch" + 1
        WHERE "organizationId" = ${ORG} AND "groupId" = 'gfence'`;
      moved = true;
    });
    const refused = await commit(9n);
    expect(moved).toBe(true);
    expect(refused.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(await stored()).toBe(3n);
    a.close();
  });
});

describe("coordinator failover", () => {
  it("when the coordinator's worker dies the group moves within 2 x lease TTL; kafkajs follows and resumes from its commits", async () => {
    await eventually("both workers host a partition", 20_000, async () =>
      w1.ownedPartitions().length + w2.ownedPartitions().length === 2 ? true : undefined,
    );
    /** The generation of each assignment kafkajs received (it logs them at debug level). */
    const generations: number[] = [];
    const kafka = new Kafka({
      brokers: [w1, w2].map((w) => `${w.kafka!.host}:${w.kafka!.port}`),
      clientId: "failover-test",
      sasl: { mechanism: "plain", username: key.id, password: key.secret },
      retry: { retries: 8, initialRetryTime: 100 },
      logLevel: logLevel.DEBUG,
      logCreator: () => (entry) => {
        const log = entry.log as { message: string; groupId?: string; generationId?: number };
        if (log.message === "Received assignment" && log.groupId === "gmove")
          generations.push(log.generationId!);
      },
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: "moving",
      messages: [
        { partition: 0, value: "before-0" },
        { partition: 1, value: "before-1" },
      ],
    });
    // The coordinator is the worker asked first; ask w1 so it holds the lease.
    const c1 = await raw(w1);
    await c1.call(ApiKey.FindCoordinator, 3, { key: "gmove", keyType: 0 });
    c1.close();
    const consumer: Consumer = kafka.consumer({
      groupId: "gmove",
      maxWaitTimeInMs: 100,
      sessionTimeout: 6000,
      heartbeatInterval: 500,
      retry: { retries: 8, initialRetryTime: 100 },
    });
    const received: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: "moving", fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push(message.value!.toString()) });
    // At least once: a rebalance before the first commit may deliver a record again.
    await expect
      .poll(() => [...new Set(received)].sort(), { timeout: 15_000 })
      .toEqual(["before-0", "before-1"]);
    await expect
      .poll(
        async () =>
          (await h.db.prisma.consumerGroupOffset.findMany({ where: { group: { name: "gmove" } } })).length,
        {
          timeout: 10_000,
        },
      )
      .toBe(2);
    const before = [...generations];
    expect(before.length).toBeGreaterThan(0);
    await w1.kill();
    await eventually("w2 coordinates the group", 2 * LEASE_TTL_MS, async () => {
      const row = await h.db.prisma.kafkaGroup.findUnique({
        where: { organizationId_groupId: { organizationId: ORG, groupId: "gmove" } },
      });
      return row?.ownerWorkerId === w2.id ? true : undefined;
    });
    // Expiry (≤ 1 TTL after the last renewal) plus one renewal tick of w2 (TTL / 3): the wait above
    // fails past 2 × TTL.
    await eventually("w2 hosts both partitions", 20_000, async () =>
      w2.ownedPartitions().length === 2 ? true : undefined,
    );
    await producer.send({
      topic: "moving",
      messages: [
        { partition: 0, value: "after-0" },
        { partition: 1, value: "after-1" },
      ],
    });
    await expect
      .poll(() => [...new Set(received)].sort(), { timeout: 30_000 })
      .toEqual(["after-0", "after-1", "before-0", "before-1"]);
    // kafkajs rejoins at w2 (its member id is unknown there): w2 numbered on from w1's last
    // generation (recorded on the lease row) instead of from 1.
    await expect.poll(() => generations.length, { timeout: 20_000 }).toBeGreaterThan(before.length);
    const after = generations.slice(before.length);
    expect(Math.min(...after)).toBeGreaterThan(Math.max(...before));
    const row = await h.db.prisma.kafkaGroup.findUniqueOrThrow({
      where: { organizationId_groupId: { organizationId: ORG, groupId: "gmove" } },
    });
    expect(row.generation).toBe(Math.max(...after));
    await consumer.disconnect();
    await producer.disconnect();
  });
});
