import { DataPlaneError } from "@lastword/dataplane";
import { ApiKey } from "@lastword/kafka-protocol";
import { AssignerProtocol, type Consumer, Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic, RawKafka } from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// The data plane's group route: the membership a coordinator holds in memory, per tenant, with
// each member's assignment decoded — what the console's consumer groups page shows.

const ORG = "org_members";
const OTHER_ORG = "org_members_other";
let h: WorkerHarness;
let w1: RunningWorker;
let w2: RunningWorker;
let key: { id: string; secret: string };
const consumers: Consumer[] = [];

async function raw(worker: RunningWorker): Promise<RawKafka> {
  const conn = await RawKafka.open(worker.kafka!.host, worker.kafka!.port);
  await conn.loginPlain(key.id, key.secret);
  return conn;
}

/** Makes w1 the group's coordinator: the worker asked first claims the lease. */
async function coordinateOnW1(groupId: string): Promise<void> {
  const conn = await raw(w1);
  await conn.call(ApiKey.FindCoordinator, 3, { key: groupId, keyType: 0 });
  conn.close();
}

const describeOn = (worker: RunningWorker, tenantId = ORG) =>
  h.client.describeGroups({ tenantId, workerId: worker.id });

beforeAll(async () => {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";
  h = await openWorkerHarness({ name: "kafka-members", secret: "kafka-members-secret" });
  await createNamedTopic(h.db.prisma, ORG, "orders", 3);
  await createNamedTopic(h.db.prisma, OTHER_ORG, "orders", 1);
  key = await createKafkaKey(h.db.prisma, ORG, CLIENT_SCOPES);
  const config = { kafka: { host: "127.0.0.1", port: 0 }, claimIntervalMs: 100, leaseTtlMs: 3_000 };
  w1 = await h.startWorker(config);
  w2 = await h.startWorker(config);
});

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.disconnect()));
  await h?.close();
});

describe("group membership over the data plane", () => {
  it("answers a kafkajs group of two members: Stable, its protocol, and disjoint assignments covering every partition", async () => {
    await coordinateOnW1("readers");
    for (const clientId of ["reader-a", "reader-b"]) {
      const kafka = new Kafka({
        brokers: [`${w1.kafka!.host}:${w1.kafka!.port}`],
        clientId,
        sasl: { mechanism: "plain", username: key.id, password: key.secret },
        retry: { retries: 8, initialRetryTime: 100 },
        logLevel: logLevel.NOTHING,
      });
      const consumer = kafka.consumer({ groupId: "readers", sessionTimeout: 6_000, heartbeatInterval: 500 });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topic: "orders", fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
    }
    const group = await eventually("the group is Stable with both members assigned", 30_000, async () => {
      const found = (await describeOn(w1)).groups.find((g) => g.groupId === "readers");
      const settled = found?.state === "Stable" && found.members.length === 2;
      return settled && found.members.every((m) => m.assignment !== null) ? found : undefined;
    });
    expect(group).toMatchObject({
      state: "Stable",
      protocolType: "consumer",
      protocolName: "RoundRobinAssigner",
    });
    expect(group.generationId).toBeGreaterThan(0);
    expect(group.members.map((m) => m.memberId)).toContain(group.leaderId);
    expect(group.members.map((m) => m.clientId).sort()).toEqual(["reader-a", "reader-b"]);
    for (const m of group.members) {
      expect(m.groupInstanceId).toBeNull();
      expect(m.clientHost).toMatch(/127\.0\.0\.1/);
      expect(m.assignment!.every((t) => t.topic === "orders")).toBe(true);
    }
    const held = group.members.flatMap((m) => m.assignment!.flatMap((t) => t.partitions));
    expect(held.sort()).toEqual([0, 1, 2]);
    // Gone before a later test stops a worker: kafkajs 2.2.4's fetch loop spins without yielding
    // (100 % CPU, no timer ever fires) once none of its partitions has a reachable leader.
    await Promise.all(consumers.splice(0).map((c) => c.disconnect()));
  });

  it("answers only the tenant asked about, and only from the worker that coordinates the group", async () => {
    expect((await describeOn(w1, OTHER_ORG)).groups).toEqual([]);
    expect((await describeOn(w2)).groups.map((g) => g.groupId)).not.toContain("readers");
    expect((await describeOn(w1)).workerId).toBe(w1.id);
  });

  it("shows a static member's group.instance.id and its decoded assignment, then the group Empty once it leaves", async () => {
    await coordinateOnW1("static-readers");
    const conn = await raw(w1);
    const metadata = AssignerProtocol.MemberMetadata.encode({
      version: 0,
      topics: ["orders"],
      userData: Buffer.alloc(0),
    });
    const joined = await conn.call(ApiKey.JoinGroup, 5, {
      groupId: "static-readers",
      sessionTimeoutMs: 6_000,
      rebalanceTimeoutMs: 3_000,
      memberId: "",
      groupInstanceId: "reader-static-1",
      protocolType: "consumer",
      protocols: [{ name: "range", metadata }],
    });
    expect(joined.errorCode).toBe(0);
    const during = (await describeOn(w1)).groups.find((g) => g.groupId === "static-readers")!;
    expect(during.state).toBe("CompletingRebalance");
    expect(during.members[0]?.assignment).toBeNull();
    const synced = await conn.call(ApiKey.SyncGroup, 3, {
      groupId: "static-readers",
      generationId: joined.generationId,
      memberId: joined.memberId,
      groupInstanceId: "reader-static-1",
      assignments: [
        {
          memberId: joined.memberId,
          assignment: AssignerProtocol.MemberAssignment.encode({
            version: 0,
            assignment: { orders: [2, 0] },
            userData: Buffer.alloc(0),
          }),
        },
      ],
    });
    expect(synced.errorCode).toBe(0);
    const stable = (await describeOn(w1)).groups.find((g) => g.groupId === "static-readers")!;
    expect(stable).toMatchObject({
      state: "Stable",
      protocolName: "range",
      generationId: joined.generationId,
      leaderId: joined.memberId,
    });
    expect(stable.members).toEqual([
      {
        memberId: joined.memberId,
        groupInstanceId: "reader-static-1",
        clientId: "raw-test",
        clientHost: expect.stringMatching(/127\.0\.0\.1/),
        assignment: [{ topic: "orders", partitions: [0, 2] }],
      },
    ]);
    const left = await conn.call(ApiKey.LeaveGroup, 3, {
      groupId: "static-readers",
      members: [{ memberId: joined.memberId, groupInstanceId: "reader-static-1" }],
    });
    expect(left.errorCode).toBe(0);
    const empty = (await describeOn(w1)).groups.find((g) => g.groupId === "static-readers")!;
    expect(empty).toMatchObject({ state: "Empty", members: [] });
    conn.close();
  });

  it("refuses to ask a worker that stopped, as WORKER_UNAVAILABLE", async () => {
    await w2.stop();
    const refusal = await describeOn(w2).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DataPlaneError);
    expect(refusal).toMatchObject({ code: "WORKER_UNAVAILABLE", retriable: true });
  });
});
