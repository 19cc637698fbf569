import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic, createNamedTopics, RawKafka } from "./kafka-client";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// A group's life beyond join/sync on raw frames: static membership (KIP-345), OffsetDelete with
// its GROUP_SUBSCRIBED_TO_TOPIC guard and tenant scope, and the KafkaGroup rows an idle group
// leaves behind.

const LEASE_TTL_MS = 1_500;
const ORG = "org_lifecycle";
const OTHER_ORG = "org_lifecycle_other";
let h: WorkerHarness;
let worker: RunningWorker;
let key: { id: string; secret: string };
let otherKey: { id: string; secret: string };
const open: RawKafka[] = [];

async function raw(as = key): Promise<RawKafka> {
  const conn = await RawKafka.login(worker.kafka!, as);
  open.push(conn);
  return conn;
}

/** ConsumerProtocolSubscription v0: the topics, then null user data. */
function subscription(...topics: string[]): Buffer {
  const parts = [Buffer.from([0, 0]), Buffer.alloc(4)];
  parts[1]!.writeInt32BE(topics.length);
  for (const t of topics) {
    const len = Buffer.alloc(2);
    len.writeInt16BE(Buffer.byteLength(t));
    parts.push(len, Buffer.from(t));
  }
  parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  return Buffer.concat(parts);
}

const join = (
  groupId: string,
  memberId: string,
  groupInstanceId: string | null,
  topics: string[] = ["life"],
  sessionTimeoutMs = 6_000,
) => ({
  groupId,
  sessionTimeoutMs,
  rebalanceTimeoutMs: 3_000,
  memberId,
  groupInstanceId,
  protocolType: "consumer",
  protocols: [{ name: "range", metadata: subscription(...topics) }],
});

const commitBody = (groupId: string, memberId: string, generation: number, instance: string | null) => ({
  groupId,
  generationIdOrMemberEpoch: generation,
  memberId,
  groupInstanceId: instance,
  topics: [
    {
      name: "life",
      partitions: [
        { partitionIndex: 0, committedOffset: 3n, committedMetadata: null },
        { partitionIndex: 1, committedOffset: 4n, committedMetadata: null },
      ],
    },
    { name: "spare", partitions: [{ partitionIndex: 0, committedOffset: 7n, committedMetadata: null }] },
  ],
});

async function leaseRow(groupId: string, organizationId = ORG) {
  return h.db.prisma.kafkaGroup.findUnique({
    where: { organizationId_groupId: { organizationId, groupId } },
  });
}

beforeAll(async () => {
  h = await openWorkerHarness({ name: "kafka-group-life", secret: "kafka-group-life-secret" });
  await createNamedTopics(h.db.prisma, ORG, { life: 2, spare: 1 });
  await createNamedTopic(h.db.prisma, OTHER_ORG, "life", 2);
  key = await createKafkaKey(h.db.prisma, ORG, CLIENT_SCOPES);
  otherKey = await createKafkaKey(h.db.prisma, OTHER_ORG, CLIENT_SCOPES);
  worker = await h.startWorker({
    kafka: { host: "127.0.0.1", port: 0 },
    claimIntervalMs: 100,
    leaseTtlMs: LEASE_TTL_MS,
  });
});

afterAll(async () => {
  for (const conn of open) conn.close();
  await h?.close();
});

describe("static membership", () => {
  it("a restarted static member replaces its old member id without a rebalance; the old id is fenced; LeaveGroup by instance id; the session timeout still expires it", async () => {
    const a = await raw();
    await a.call(ApiKey.FindCoordinator, 3, { key: "gstatic", keyType: 0 });
    // A static member needs no MEMBER_ID_REQUIRED round trip, even at v5.
    const first = await a.call(ApiKey.JoinGroup, 5, join("gstatic", "", "inst-a"));
    expect(first).toMatchObject({ errorCode: 0, generationId: 1 });
    expect(first.leader).toBe(first.memberId);

    const b = await raw();
    const bJoin = b.call(ApiKey.JoinGroup, 5, join("gstatic", "", "inst-b"));
    const hb = (memberId: string, generationId: number, instance: string | null) =>
      a.call(ApiKey.Heartbeat, 3, { groupId: "gstatic", generationId, memberId, groupInstanceId: instance });
    await expect
      .poll(async () => (await hb(first.memberId, 1, "inst-a")).errorCode)
      .toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const aJoin = await a.call(ApiKey.JoinGroup, 5, join("gstatic", first.memberId, "inst-a"));
    const bJoined = await bJoin;
    expect(aJoin).toMatchObject({ errorCode: 0, generationId: 2, leader: first.memberId });
    expect(aJoin.members.map((m) => m.groupInstanceId).sort()).toEqual(["inst-a", "inst-b"]);
    const sync = (
      conn: RawKafka,
      memberId: string,
      instance: string,
      generationId: number,
      assignments = [],
    ) =>
      conn.call(ApiKey.SyncGroup, 3, {
        groupId: "gstatic",
        generationId,
        memberId,
        groupInstanceId: instance,
        assignments,
      });
    const bSync = sync(b, bJoined.memberId, "inst-b", 2);
    const aSync = await a.call(ApiKey.SyncGroup, 3, {
      groupId: "gstatic",
      generationId: 2,
      memberId: first.memberId,
      groupInstanceId: "inst-a",
      assignments: [
        { memberId: first.memberId, assignment: Buffer.from("part-0") },
        { memberId: bJoined.memberId, assignment: Buffer.from("part-1") },
      ],
    });
    expect(Buffer.from(aSync.assignment).toString()).toBe("part-0");
    expect(Buffer.from((await bSync).assignment).toString()).toBe("part-1");

    // b restarts: a new connection, no member id, the same instance id.
    b.close();
    const b2 = await raw();
    const rejoined = await b2.call(ApiKey.JoinGroup, 5, join("gstatic", "", "inst-b"));
    expect(rejoined).toMatchObject({ errorCode: 0, generationId: 2, leader: first.memberId, members: [] });
    expect(rejoined.memberId).not.toBe(bJoined.memberId);
    // No rebalance: the leader's heartbeat is clean and the new id gets the old assignment.
    expect((await hb(first.memberId, 2, "inst-a")).errorCode).toBe(0);
    const bSynced = await sync(b2, rejoined.memberId, "inst-b", 2);
    expect(bSynced.errorCode).toBe(0);
    expect(Buffer.from(bSynced.assignment).toString()).toBe("part-1");
    // The old member id is fenced on every request that names the instance.
    expect((await hb(bJoined.memberId, 2, "inst-b")).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await sync(a, bJoined.memberId, "inst-b", 2)).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const fencedCommit = await a.call(
      ApiKey.OffsetCommit,
      7,
      commitBody("gstatic", bJoined.memberId, 2, "inst-b"),
    );
    expect(fencedCommit.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))).toEqual([
      ErrorCode.FENCED_INSTANCE_ID,
      ErrorCode.FENCED_INSTANCE_ID,
      ErrorCode.FENCED_INSTANCE_ID,
    ]);
    const fencedJoin = await a.call(ApiKey.JoinGroup, 5, join("gstatic", bJoined.memberId, "inst-b"));
    expect(fencedJoin.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const described = await a.call(ApiKey.DescribeGroups, 5, {
      groups: ["gstatic"],
      includeAuthorizedOperations: false,
    });
    expect(described.groups[0]).toMatchObject({ groupState: "Stable" });
    expect(described.groups[0]!.members.map((m) => [m.groupInstanceId, m.memberId]).sort()).toEqual(
      [
        ["inst-a", first.memberId],
        ["inst-b", rejoined.memberId],
      ].sort(),
    );

    // LeaveGroup v4 by instance id: a stale member id is fenced, an unknown instance unknown, an
    // empty member id removes whoever holds the instance.
    const left = await a.call(ApiKey.LeaveGroup, 4, {
      groupId: "gstatic",
      members: [
        { memberId: bJoined.memberId, groupInstanceId: "inst-b" },
        { memberId: "", groupInstanceId: "inst-z" },
        { memberId: "", groupInstanceId: "inst-b" },
      ],
    });
    expect(left.members.map((m) => m.errorCode)).toEqual([
      ErrorCode.FENCED_INSTANCE_ID,
      ErrorCode.UNKNOWN_MEMBER_ID,
      0,
    ]);
    await expect
      .poll(async () => (await hb(first.memberId, 2, "inst-a")).errorCode)
      .toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    // a rejoins alone with the shortest session it may ask for, then goes silent.
    const alone = await a.call(
      ApiKey.JoinGroup,
      5,
      join("gstatic", first.memberId, "inst-a", ["life"], 1_000),
    );
    expect(alone).toMatchObject({ errorCode: 0, generationId: 3 });
    expect(alone.members.map((m) => m.groupInstanceId)).toEqual(["inst-a"]);
    await sync(a, first.memberId, "inst-a", 3);
    await expect
      .poll(
        async () => {
          const g = (
            await a.call(ApiKey.DescribeGroups, 5, {
              groups: ["gstatic"],
              includeAuthorizedOperations: false,
            })
          ).groups[0]!;
          return [g.groupState, g.members.length];
        },
        { timeout: 10_000 },
      )
      .toEqual(["Empty", 0]);
    // Expired, the instance id is free: a join under it starts a new generation as a new member.
    const again = await a.call(ApiKey.JoinGroup, 5, join("gstatic", "", "inst-a"));
    expect(again.errorCode).toBe(0);
    expect(again.generationId).toBeGreaterThan(3);
    expect(again.memberId).not.toBe(first.memberId);
    await a.call(ApiKey.LeaveGroup, 4, {
      groupId: "gstatic",
      members: [{ memberId: "", groupInstanceId: "inst-a" }],
    });
  });
});

describe("OffsetDelete", () => {
  it("deletes a group's offsets of topics it does not read, refuses those it reads with GROUP_SUBSCRIBED_TO_TOPIC, and stays within the tenant", async () => {
    const a = await raw();
    await a.call(ApiKey.FindCoordinator, 3, { key: "gdel", keyType: 0 });
    const joined = await a.call(ApiKey.JoinGroup, 5, join("gdel", "", "del-a", ["life"]));
    await a.call(ApiKey.SyncGroup, 3, {
      groupId: "gdel",
      generationId: joined.generationId,
      memberId: joined.memberId,
      groupInstanceId: "del-a",
      assignments: [],
    });
    const committed = await a.call(
      ApiKey.OffsetCommit,
      7,
      commitBody("gdel", joined.memberId, joined.generationId, "del-a"),
    );
    expect(committed.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))).toEqual([0, 0, 0]);
    const all = [
      { name: "life", partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] },
      { name: "spare", partitions: [{ partitionIndex: 0 }] },
      { name: "missing", partitions: [{ partitionIndex: 0 }] },
      { name: "life", partitions: [{ partitionIndex: 9 }] },
    ];
    const stored = async () =>
      (
        await h.db.prisma.consumerGroupOffset.findMany({
          where: { group: { organizationId: ORG, name: "gdel" } },
          include: { topic: true },
        })
      )
        .map((o) => `${o.topic.name}-${o.partitionIndex}=${o.offset}`)
        .sort();

    // The other tenant's group "gdel" does not exist: nothing of ours is touched.
    const other = await raw(otherKey);
    await other.call(ApiKey.FindCoordinator, 3, { key: "gdel", keyType: 0 });
    const foreign = await other.call(ApiKey.OffsetDelete, 0, { groupId: "gdel", topics: all });
    expect(foreign).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] });
    expect(await stored()).toEqual(["life-0=3", "life-1=4", "spare-0=7"]);

    const whileReading = await a.call(ApiKey.OffsetDelete, 0, { groupId: "gdel", topics: all });
    expect(whileReading.errorCode).toBe(0);
    expect(whileReading.topics.map((t) => [t.name, t.partitions.map((p) => p.errorCode)])).toEqual([
      ["life", [ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC]],
      ["spare", [0]],
      ["missing", [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]],
      ["life", [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]],
    ]);
    expect(await stored()).toEqual(["life-0=3", "life-1=4"]);

    // Once the member left, the group is Empty and its offsets of "life" may go too.
    await a.call(ApiKey.LeaveGroup, 4, {
      groupId: "gdel",
      members: [{ memberId: "", groupInstanceId: "del-a" }],
    });
    const empty = await a.call(ApiKey.OffsetDelete, 0, {
      groupId: "gdel",
      topics: [{ name: "life", partitions: [{ partitionIndex: 1 }] }],
    });
    expect(empty.topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect(await stored()).toEqual(["life-0=3"]);
    const fetched = await a.call(ApiKey.OffsetFetch, 7, { groupId: "gdel", topics: null });
    expect(
      fetched.topics.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.committedOffset])),
    ).toEqual([["life", 0, 3n]]);
    expect((await a.call(ApiKey.OffsetDelete, 0, { groupId: "", topics: [] })).errorCode).toBe(
      ErrorCode.INVALID_GROUP_ID,
    );
  });

  it("is refused without the groups:write scope and changes nothing", async () => {
    const reader = await createKafkaKey(h.db.prisma, ORG, ["topics:read", "groups:read"]);
    const conn = await raw(reader);
    await conn.call(ApiKey.FindCoordinator, 3, { key: "gdel", keyType: 0 });
    const refused = await conn.call(ApiKey.OffsetDelete, 0, {
      groupId: "gdel",
      topics: [{ name: "life", partitions: [{ partitionIndex: 0 }] }],
    });
    expect(refused).toMatchObject({ errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] });
    expect(
      await h.db.prisma.consumerGroupOffset.count({
        where: { group: { organizationId: ORG, name: "gdel" } },
      }),
    ).toBe(1);
  });
});

describe("group lease rows", () => {
  it("an idle group's lease is let go: its row is deleted when it has no offsets and kept when it has; a group in use keeps its lease", async () => {
    const conn = await raw();
    const found = await conn.call(ApiKey.FindCoordinator, 4, {
      keyType: 0,
      coordinatorKeys: ["gidle", "gkept", "gbusy"],
    });
    expect(found.coordinators.map((c) => c.errorCode)).toEqual([0, 0, 0]);
    // gkept gets offsets through an admin commit; gbusy a member that keeps heartbeating.
    await conn.call(ApiKey.OffsetCommit, 7, commitBody("gkept", "", -1, null));
    const busy = await conn.call(ApiKey.JoinGroup, 5, join("gbusy", "", "busy-a", ["life"], 1_000));
    await conn.call(ApiKey.SyncGroup, 3, {
      groupId: "gbusy",
      generationId: busy.generationId,
      memberId: busy.memberId,
      groupInstanceId: "busy-a",
      assignments: [],
    });
    const busyEpoch = (await leaseRow("gbusy"))!.epoch;
    expect(await leaseRow("gidle")).toMatchObject({ ownerWorkerId: worker.id });

    await expect
      .poll(
        async () => {
          const hb = await conn.call(ApiKey.Heartbeat, 3, {
            groupId: "gbusy",
            generationId: busy.generationId,
            memberId: busy.memberId,
            groupInstanceId: "busy-a",
          });
          expect(hb.errorCode).toBe(0);
          return [await leaseRow("gidle"), (await leaseRow("gkept"))?.ownerWorkerId];
        },
        { timeout: 15_000, interval: 200 },
      )
      .toEqual([null, null]);
    expect(await leaseRow("gbusy")).toMatchObject({ ownerWorkerId: worker.id, epoch: busyEpoch });
    // The kept group's offsets are untouched and the next FindCoordinator claims it again.
    await conn.call(ApiKey.FindCoordinator, 3, { key: "gkept", keyType: 0 });
    expect(await leaseRow("gkept")).toMatchObject({ ownerWorkerId: worker.id });
    const fetched = await conn.call(ApiKey.OffsetFetch, 7, { groupId: "gkept", topics: null });
    expect(fetched.topics.flatMap((t) => t.partitions.map((p) => p.committedOffset)).sort()).toEqual([
      3n,
      4n,
      7n,
    ]);
  });
});
