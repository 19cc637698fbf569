import { ManualClock } from "@lastword/logstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, rest, startHarness } from "./api-harness";

// The charts' series over REST: per-minute samples (written by the partitions' owners, inserted
// here as they write them) summed per topic, with each group's lag, for the topic's tenant only.
const M = 60_000;
const NOW = Date.parse("2026-12-01T12:00:30.000Z");
let h: Harness;
const clock = new ManualClock(NOW);
let key: string;
let otherKey: string;

beforeAll(async () => {
  h = await startHarness("topic-history", { clock });
  const owner = await h.server.provisionTenant({
    name: "Hist",
    email: "hist@example.com",
    password: "hist-pass-1",
  });
  key = (await h.server.createApiKey({ ...owner, name: "rw" })).key;
  const other = await h.server.provisionTenant({
    name: "Other",
    email: "oth@example.com",
    password: "oth-pass-1",
  });
  otherKey = (await h.server.createApiKey({ ...other, name: "rw" })).key;
  const created = await rest(h.server, { apiKey: key }, "POST", "/topics", {
    name: "orders",
    partitions: 2,
    configs: { "cleanup.policy": "compact" },
  });
  expect(created.status).toBe(201);
  const partitions = await h.db.prisma.partition.findMany({
    where: { topic: { organizationId: owner.organizationId, name: "orders" } },
    orderBy: { index: "asc" },
  });
  const minute = (ago: number) => new Date(Math.floor(NOW / M) * M - ago * M);
  // Three minutes of two partitions; a sample older than the window asked for is left out.
  const rows = [
    [0, 90, 10, 1, 0, 0],
    [0, 3, 100, 10, 10, 0],
    [0, 2, 200, 20, 15, 4],
    [0, 1, 300, 0, 30, 0],
    [1, 2, 50, 5, 1, 2],
    [1, 1, 60, 0, 4, 0],
  ] as const;
  await h.db.prisma.partitionSample.createMany({
    data: rows.map(([index, ago, sizeBytes, dirtyBytes, logEndOffset, fetchedRecords]) => ({
      partitionId: partitions[index]!.id,
      at: minute(ago),
      sizeBytes: BigInt(sizeBytes),
      dirtyBytes: BigInt(dirtyBytes),
      logEndOffset: BigInt(logEndOffset),
      fetchedRecords: BigInt(fetchedRecords),
    })),
  });
  const group = await h.db.prisma.consumerGroup.create({
    data: { organizationId: owner.organizationId, name: "billing" },
  });
  await h.db.prisma.groupLagSample.createMany({
    data: [
      { groupId: group.id, topicId: partitions[0]!.topicId, partitionIndex: 0, at: minute(2), lag: 5n },
      { groupId: group.id, topicId: partitions[0]!.topicId, partitionIndex: 1, at: minute(2), lag: 1n },
      { groupId: group.id, topicId: partitions[0]!.topicId, partitionIndex: 0, at: minute(1), lag: 0n },
    ],
  });
});

afterAll(async () => {
  await h?.close();
});

describe("GET /topics/{topic}/history", () => {
  it("answers the topic's minutes: size, live bytes, records produced, and each group's lag", async () => {
    const res = await rest(h.server, { apiKey: key }, "GET", "/topics/orders/history?minutes=3");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      minutes: [
        {
          at: "2026-12-01T11:58:00.000Z",
          sizeBytes: 250,
          liveBytes: 225,
          producedRecords: 5,
          fetchedRecords: 6,
        },
        {
          at: "2026-12-01T11:59:00.000Z",
          sizeBytes: 360,
          liveBytes: 360,
          producedRecords: 18,
          fetchedRecords: 0,
        },
      ],
      groups: [
        {
          group: "billing",
          lag: [
            { at: "2026-12-01T11:58:00.000Z", records: 6 },
            { at: "2026-12-01T11:59:00.000Z", records: 0 },
          ],
        },
      ],
    });
  });

  it("refuses another tenant's key as an unknown topic, and a window outside 2 minutes to a day", async () => {
    const other = await rest(h.server, { apiKey: otherKey }, "GET", "/topics/orders/history");
    expect(other.status).toBe(404);
    const tooLong = await rest(h.server, { apiKey: key }, "GET", "/topics/orders/history?minutes=1441");
    expect(tooLong.status).toBe(400);
  });
});

describe("GET /consumer-group-lag-history", () => {
  it("answers each group's lag per minute over every topic it committed on, for the caller's tenant only", async () => {
    const created = await rest(h.server, { apiKey: key }, "POST", "/topics", {
      name: "events",
      partitions: 1,
      configs: { "cleanup.policy": "delete" },
    });
    expect(created.status).toBe(201);
    const group = await h.db.prisma.consumerGroup.findFirstOrThrow({ where: { name: "billing" } });
    const events = await h.db.prisma.topic.findFirstOrThrow({ where: { name: "events" } });
    const lastMinute = new Date(Math.floor(NOW / M) * M - M);
    await h.db.prisma.groupLagSample.create({
      data: { groupId: group.id, topicId: events.id, partitionIndex: 0, at: lastMinute, lag: 7n },
    });

    const res = await rest(h.server, { apiKey: key }, "GET", "/consumer-group-lag-history?minutes=3");
    expect(res.status).toBe(200);
    // orders' 6 then 0, and events' 7 in the last minute: one series over both topics.
    expect(res.body).toEqual({
      groups: [
        {
          group: "billing",
          lag: [
            { at: "2026-12-01T11:58:00.000Z", records: 6 },
            { at: "2026-12-01T11:59:00.000Z", records: 7 },
          ],
        },
      ],
    });
    const recent = await rest(h.server, { apiKey: key }, "GET", "/consumer-group-lag-history?minutes=2");
    expect(recent.body).toEqual({
      groups: [{ group: "billing", lag: [{ at: "2026-12-01T11:59:00.000Z", records: 7 }] }],
    });
    const other = await rest(h.server, { apiKey: otherKey }, "GET", "/consumer-group-lag-history");
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ groups: [] });
  });
});
