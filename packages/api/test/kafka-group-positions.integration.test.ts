import type { Consumer } from "kafkajs";
import { afterEach, describe, expect, it } from "vitest";
import { rest, str } from "./api-harness";
import { useTenantWorld, worldKafka } from "./tenant-world";

// One consumer-group model behind two entry points: what kafkajs commits is what REST, the
// console's lag views and the compliance report read, and what REST commits or resets is what
// kafkajs's next OffsetFetch answers and where it resumes. The worker is a real process.

const h = useTenantWorld("kafka_group_positions", {
  scopes: ["admin"],
  topics: [
    { name: "profiles", partitions: 1, configs: { "cleanup.policy": "compact" } },
    { name: "ledger", partitions: 1, configs: { "cleanup.policy": "compact" } },
  ],
});
const consumers: Consumer[] = [];

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.disconnect().catch(() => undefined)));
});

const call = (method: string, path: string, body?: unknown) =>
  rest(h.server, { apiKey: h.key }, method, path, body);

async function produce(topic: string, keys: string[]): Promise<void> {
  const res = await call("POST", `/topics/${topic}/records`, {
    records: keys.map((key) => ({ key: str(key), value: str(`value of ${key}`), partition: 0 })),
  });
  expect(res.status).toBe(200);
}

/** A kafkajs member of `groupId` reading `topic`; the values it received, in order. */
async function consume(groupId: string, topic: string, fromBeginning: boolean): Promise<string[]> {
  const consumer = worldKafka(h, `positions-${groupId}`).consumer({
    groupId,
    maxWaitTimeInMs: 100,
    sessionTimeout: 6_000,
    heartbeatInterval: 500,
  });
  consumers.push(consumer);
  const received: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning });
  await consumer.run({ eachMessage: async ({ message }) => void received.push(message.value!.toString()) });
  return received;
}

async function fetchedOffset(groupId: string, topic: string) {
  const admin = worldKafka(h, "positions-admin").admin();
  await admin.connect();
  try {
    return (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions[0];
  } finally {
    await admin.disconnect();
  }
}

interface LaggingGroup {
  group: string;
  topic: string;
  committedOffset: number;
}

describe("a Kafka group without a committed position", () => {
  it("kafkajs's -1 shows as no position and no lag over REST, and is not counted behind an erasure tombstone", async () => {
    await produce("profiles", ["user-1", "user-2", "user-3"]);
    // Scenario 22: a position past the high watermark; kafkajs, told to start from the latest,
    // meets OFFSET_OUT_OF_RANGE and commits -1 ("no position").
    const admin = worldKafka(h, "positions-admin").admin();
    await admin.connect();
    await admin.setOffsets({
      groupId: "g-none",
      topic: "profiles",
      partitions: [{ partition: 0, offset: "100" }],
    });
    await admin.disconnect();
    await consume("g-none", "profiles", false);
    await expect
      .poll(async () => (await fetchedOffset("g-none", "profiles"))?.offset, { timeout: 20_000 })
      .toBe("-1");
    // Stopped while at -1: the tombstone below would otherwise be read and committed past.
    await Promise.all(consumers.splice(0).map((c) => c.disconnect()));

    const lag = await call("GET", "/consumer-groups/g-none/lag");
    expect(lag.status).toBe(200);
    expect(lag.body).toMatchObject({
      group: "g-none",
      partitions: [
        { topic: "profiles", partition: 0, offset: null, logEndOffset: 3, lag: null, lagMs: null },
      ],
      totalLag: 0,
      maxLagMs: 0,
    });
    const described = await call("GET", "/consumer-groups/g-none");
    expect(described.body.offsets).toMatchObject([
      { partition: 0, offset: null, logEndOffset: 3, lag: null },
    ]);
    const listed = await call("GET", "/consumer-groups");
    const overview = (listed.body.groups as { group: string; totalLag: number; topics: unknown[] }[]).find(
      (g) => g.group === "g-none",
    );
    expect(overview).toMatchObject({
      totalLag: 0,
      topics: [{ topic: "profiles", partitions: [{ offset: null, lag: null }] }],
    });

    // A group with a real position before the tombstone is behind it; the one without is not.
    expect(
      (
        await call("POST", "/consumer-groups/g-behind/offsets", {
          offsets: [{ topic: "profiles", partition: 0, offset: 1 }],
        })
      ).status,
    ).toBe(200);
    const filed = await call("POST", "/erasure-requests", {
      keys: [str("user-1")],
      topics: ["profiles"],
      deadlineAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    });
    expect(filed.status).toBe(201);
    const report = await call("GET", "/erasure-topics");
    const profiles = (report.body.topics as { topic: string; laggingGroups: LaggingGroup[] }[]).find(
      (t) => t.topic === "profiles",
    );
    expect(profiles?.laggingGroups.map((g) => [g.group, g.committedOffset])).toEqual([["g-behind", 1]]);
    const detail = await call("GET", `/erasure-requests/${filed.body.id as string}`);
    expect((detail.body.laggingGroups as LaggingGroup[]).map((g) => g.group)).toEqual(["g-behind"]);
  });
});

describe("a REST position seen by kafkajs", () => {
  it("kafkajs fetches and resumes from a REST commit, and from a REST reset (POST /consumer-groups/{group}/reset)", async () => {
    await produce("ledger", ["r0", "r1", "r2", "r3"]);
    const committed = await call("POST", "/consumer-groups/g-rest/offsets", {
      offsets: [{ topic: "ledger", partition: 0, offset: 2, metadata: "from rest" }],
    });
    expect(committed.status).toBe(200);
    expect(await fetchedOffset("g-rest", "ledger")).toEqual({
      partition: 0,
      offset: "2",
      metadata: "from rest",
    });
    const first = await consume("g-rest", "ledger", true);
    await expect.poll(() => first, { timeout: 20_000 }).toEqual(["value of r2", "value of r3"]);
    // kafkajs's commit is the row REST reads.
    await expect
      .poll(async () => (await call("GET", "/consumer-groups/g-rest")).body.offsets, { timeout: 10_000 })
      .toMatchObject([{ partition: 0, offset: 4, lag: 0 }]);
    await Promise.all(consumers.splice(0).map((c) => c.disconnect()));

    const reset = await call("POST", "/consumer-groups/g-rest/reset", {
      topic: "ledger",
      to: "offset",
      offset: 1,
    });
    expect(reset.status).toBe(200);
    expect(reset.body.offsets).toMatchObject([{ partition: 0, offset: 1, previousOffset: 4 }]);
    expect(await fetchedOffset("g-rest", "ledger")).toMatchObject({ partition: 0, offset: "1" });
    const again = await consume("g-rest", "ledger", true);
    await expect
      .poll(() => again, { timeout: 20_000 })
      .toEqual(["value of r1", "value of r2", "value of r3"]);
  });
});
