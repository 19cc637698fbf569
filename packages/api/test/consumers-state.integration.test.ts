import { envelope, LastwordApiError, type LastwordClient, type StreamRecord } from "@lastword/client";
import { ManualClock } from "@lastword/logstore";
import { beforeAll, describe, expect, it } from "vitest";
import { drain, PUBLIC_URL, provisionTenantKey, rest, restClient, trpc } from "./api-harness";
import { issueKey, useTenantWorld } from "./tenant-world";

// Replay, snapshot and key lookup against a model of random writes, tombstones and passes;
// consumer-group lag across compaction gaps; the streaming routes' access checks.
// The server reads a manual clock (the worker stamps records with the real one), so a lag's age is exact.
const clock = new ManualClock();
const h = useTenantWorld("consumers_state", { clock });
let client: LastwordClient;

const TOPIC = "flags";
const PARTITIONS = 3;
const KEYS = 60;
const model = new Map<string, string>();

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function partitionIds(): Promise<string[]> {
  const topic = await h.db.prisma.topic.findFirstOrThrow({ where: { name: TOPIC } });
  const rows = await h.db.prisma.partition.findMany({
    where: { topicId: topic.id },
    orderBy: { index: "asc" },
  });
  return rows.map((r) => r.id);
}

async function cleanAll(): Promise<void> {
  for (const partitionId of await partitionIds()) await h.dataPlane.requestClean({ partitionId });
}

function asState(records: StreamRecord[]): Map<string, string> {
  const state = new Map<string, string>();
  for (const r of records) {
    const key = r.key?.data as string;
    if (r.value === null) state.delete(key);
    else state.set(key, r.value.data as string);
  }
  return state;
}

beforeAll(async () => {
  client = restClient(h.server, h.key);
  await client.topics.create({
    name: TOPIC,
    partitions: PARTITIONS,
    preset: "state-table",
    configs: { "segment.bytes": "2048", "delete.retention.ms": "0", "min.cleanable.dirty.ratio": "0.01" },
  });
  // Random writes and tombstones in rounds, with cleaner passes between some of them.
  const random = rng(7);
  for (let round = 0; round < 8; round++) {
    const batch = [];
    for (let i = 0; i < 80; i++) {
      const key = `flag-${Math.floor(random() * KEYS)}`;
      if (random() < 0.15) {
        batch.push({ key: envelope.string(key), value: null });
        model.delete(key);
      } else {
        const value = `v${round}-${i}-${"x".repeat(Math.floor(random() * 40))}`;
        batch.push({ key: envelope.string(key), value: envelope.string(value) });
        model.set(key, value);
      }
    }
    await client.records.produce(TOPIC, batch);
    if (round % 3 !== 0) await cleanAll();
  }
}, 60_000);

describe("replay, snapshot and key lookup", () => {
  it("the cleaner really removed records (the log has offset gaps)", async () => {
    const page = await client.records.read(TOPIC, 0, { offset: 0, limit: 1000 });
    const gaps = page.records.some((r, i) => i > 0 && r.offset !== page.records[i - 1]!.offset + 1);
    expect(gaps || page.records[0]!.offset > 0).toBe(true);
  });

  it("replay after random writes, tombstones and passes equals the model", async () => {
    const { state, offsets } = await client.replayToMap(TOPIC, { via: "replay" });
    expect(new Map([...state].map(([k, v]) => [k, v.data]))).toEqual(model);
    const ids = await partitionIds();
    for (const [i, id] of ids.entries())
      expect(offsets[i]).toBe((await h.dataPlane.listOffsets({ partitionId: id })).latest);
  });

  it("snapshot sends exactly one live record per key and equals replay", async () => {
    const { records, offsets } = await drain(await client.stream(TOPIC, { mode: "snapshot" }));
    expect(records.every((r) => r.value !== null)).toBe(true);
    expect(new Set(records.map((r) => r.key?.data)).size).toBe(records.length);
    expect(asState(records)).toEqual(model);
    const replayed = await drain(await client.stream(TOPIC, { mode: "replay" }));
    expect(asState(records)).toEqual(asState(replayed.records));
    expect(offsets).toEqual(replayed.offsets);
    const { state } = await client.replayToMap(TOPIC);
    expect(state.size).toBe(model.size);
  });

  it("key lookup equals replay for every key, 404 when absent or tombstoned", async () => {
    for (let k = 0; k < KEYS + 2; k++) {
      const key = `flag-${k}`;
      const expected = model.get(key);
      const found = await client.keys.get(TOPIC, key).catch((e: unknown) => e);
      if (expected === undefined) expect(found).toMatchObject({ status: 404, code: "KEY_NOT_FOUND" });
      else expect(found).toMatchObject({ value: { type: "string", data: expected } });
    }
  });

  it("versions list every retained record of a key with its segment, the latest last", async () => {
    const key = [...model.keys()][0]!;
    const { versions, logStartOffset } = await client.keys.versions(TOPIC, key);
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.at(-1)?.value).toEqual({ type: "string", data: model.get(key) });
    for (const v of versions) {
      expect(v.segment.baseOffset).toBeLessThanOrEqual(v.offset);
      expect(v.offset).toBeGreaterThanOrEqual(logStartOffset);
    }
    const latest = await client.keys.get(TOPIC, key);
    expect(latest.offset).toBe(versions.at(-1)?.offset);
  });

  it("a replay resumes from per-partition offsets and tail follows new writes", async () => {
    const { state, offsets } = await client.replayToMap(TOPIC);
    const resumed = await drain(await client.stream(TOPIC, { offsets }));
    expect(resumed.records).toEqual([]);
    expect(resumed.offsets).toEqual(offsets);

    const abort = new AbortController();
    const seen: StreamRecord[] = [];
    const following = (async () => {
      for await (const record of client.tail(TOPIC, offsets, { waitMs: 2_000, signal: abort.signal })) {
        seen.push(record);
        if (seen.length === 3) break;
      }
    })();
    // A tail that stops following must fail with what it saw, not hang the suite.
    const stalled = setTimeout(() => abort.abort(), 30_000);
    await client.records.produce(TOPIC, [{ key: envelope.string("new-a"), value: envelope.string("1") }]);
    // Once the tail has delivered that record it is following: the next two are written after.
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(1);
    await client.records.produce(TOPIC, [
      { key: envelope.string("new-b"), value: envelope.string("2") },
      { key: envelope.string("flag-1"), value: null },
    ]);
    await following;
    clearTimeout(stalled);
    expect(seen.map((r) => r.key?.data)).toEqual(expect.arrayContaining(["new-a", "new-b", "flag-1"]));
    abort.abort();
    for (const r of seen) {
      expect(r.offset).toBeGreaterThanOrEqual(offsets[r.partition]!);
      if (r.value === null) state.delete(r.key?.data as string);
      else state.set(r.key?.data as string, r.value);
    }
    model.set("new-a", "1");
    model.set("new-b", "2");
    model.delete("flag-1");
    expect(new Map([...state].map(([k, v]) => [k, v.data]))).toEqual(model);
  });
});

describe("consumer groups", () => {
  it("lag is correct across compaction gaps: a committed offset inside a removed range still works", async () => {
    const page = await client.records.read(TOPIC, 0, { offset: 0, limit: 1000 });
    const gapAt = page.records.findIndex((r, i) => i > 0 && r.offset !== page.records[i - 1]!.offset + 1);
    const next = gapAt > 0 ? page.records[gapAt]! : page.records[0]!;
    const committed = gapAt > 0 ? page.records[gapAt - 1]!.offset + 1 : 0;
    expect(committed).toBeLessThan(next.offset); // inside the removed range
    await client.consumerGroups.commitOffsets("billing", [{ topic: TOPIC, partition: 0, offset: committed }]);
    // On the server's clock the next unread record is now 5 s old.
    clock.advance(Math.max(0, next.timestamp - clock.now()) + 5_000);
    const { partitions } = await client.consumerGroups.lag("billing");
    const p0 = partitions.find((p) => p.partition === 0)!;
    expect(p0.lag).toBe(page.logEndOffset - committed);
    expect(p0.lagMs).toBe(5_000);
    const resumed = await client.records.read(TOPIC, 0, { offset: committed, limit: 1 });
    expect(resumed.records[0]?.offset).toBe(next.offset);
  });

  it("resets to earliest, latest and a timestamp; lists the groups of a topic", async () => {
    const ids = await partitionIds();
    const ends = await Promise.all(ids.map((partitionId) => h.dataPlane.listOffsets({ partitionId })));
    const latest = await client.consumerGroups.reset("billing", { topic: TOPIC, to: "latest" });
    expect(latest.offsets.map((o) => o.offset)).toEqual(ends.map((e) => e.latest));
    const caughtUp = await client.consumerGroups.lag("billing");
    expect(caughtUp.totalLag).toBe(0);
    expect(caughtUp.maxLagMs).toBe(0);

    const earliest = await client.consumerGroups.reset("billing", {
      topic: TOPIC,
      to: "earliest",
      partitions: [1],
    });
    expect(earliest.offsets).toEqual([
      {
        topic: TOPIC,
        partition: 1,
        offset: ends[1]!.earliest,
        previousOffset: ends[1]!.latest,
        lagAfter: ends[1]!.latest - ends[1]!.earliest,
      },
    ]);

    const page = await client.records.read(TOPIC, 2, { offset: 0, limit: 1000 });
    const middle = page.records[Math.floor(page.records.length / 2)]!;
    const byTime = await client.consumerGroups.reset("billing", {
      topic: TOPIC,
      to: "timestamp",
      timestamp: middle.timestamp,
      partitions: [2],
    });
    const firstAtOrAfter = page.records.find((r) => r.timestamp >= middle.timestamp)!;
    expect(byTime.offsets[0]?.offset).toBe(firstAtOrAfter.offset);

    await client.consumerGroups.commitOffsets("search", [{ topic: TOPIC, partition: 0, offset: 0 }]);
    const listed = await client.consumerGroups.listForTopic(TOPIC);
    expect(listed.groups.map((g) => g.group)).toEqual(["billing", "search"]);
  });
});

describe("the tenant's consumer groups page", () => {
  const trpcCall = async (kind: "query" | "mutation", path: string, input?: unknown) =>
    trpc(h.server, { apiKey: h.key }, kind, path, input);

  it("previews a reset without committing it, then moves to an offset kept within the log", async () => {
    const ids = await partitionIds();
    const ends = await Promise.all(ids.map((partitionId) => h.dataPlane.listOffsets({ partitionId })));
    await client.consumerGroups.reset("preview", { topic: TOPIC, to: "latest" });
    const preview = await trpcCall("mutation", "consumerGroups.reset", {
      group: "preview",
      topic: TOPIC,
      to: "earliest",
      partitions: [0],
      dryRun: true,
    });
    expect(preview.body.result?.data).toEqual({
      group: "preview",
      dryRun: true,
      offsets: [
        {
          topic: TOPIC,
          partition: 0,
          offset: ends[0]!.earliest,
          previousOffset: ends[0]!.latest,
          lagAfter: ends[0]!.latest - ends[0]!.earliest,
        },
      ],
    });
    expect((await client.consumerGroups.lag("preview")).totalLag).toBe(0);

    const beyond = await client.consumerGroups.reset("preview", {
      topic: TOPIC,
      to: "offset",
      offset: 1_000_000,
      partitions: [0],
    });
    expect(beyond.offsets[0]).toMatchObject({ offset: ends[0]!.latest, lagAfter: 0 });
    const missing = await trpcCall("mutation", "consumerGroups.reset", {
      group: "preview",
      topic: TOPIC,
      to: "offset",
      partitions: [0],
    });
    expect(missing.status).toBe(400);
    // Over REST the same refusals are problem documents, and nothing moved.
    for (const [body, status] of [
      [{ topic: TOPIC, to: "timestamp", partitions: [0] }, 400],
      [{ topic: TOPIC, to: "offset", offset: -1, partitions: [0] }, 400],
      [{ topic: TOPIC, to: "earliest", partitions: [99] }, 404],
    ] as const) {
      const refused = await rest(h.server, { apiKey: h.key }, "POST", "/consumer-groups/preview/reset", body);
      expect(refused.status, JSON.stringify(body)).toBe(status);
      expect(refused.contentType).toBe("application/problem+json");
    }
    expect(
      (await client.consumerGroups.lag("preview")).partitions.find((p) => p.partition === 0)?.offset,
    ).toBe(ends[0]!.latest);
    const noPartition = await trpcCall("mutation", "consumerGroups.reset", {
      group: "preview",
      topic: TOPIC,
      to: "earliest",
      partitions: [99],
      dryRun: true,
    });
    expect(noPartition.status).toBe(404);
  });

  it("lists every group with lag per topic, and deletes one unless a Kafka coordinator holds it", async () => {
    const listed = await trpcCall("query", "consumerGroups.list");
    const groups = (
      listed.body.result!.data as {
        groups: {
          group: string;
          protocol: string;
          topics: { topic: string; deleteRetentionMs: number; partitions: unknown[] }[];
        }[];
      }
    ).groups;
    expect(groups.map((g) => g.group)).toEqual(expect.arrayContaining(["billing", "preview", "search"]));
    const billing = groups.find((g) => g.group === "billing")!;
    expect(billing.protocol).toBe("rest");
    expect(billing.topics.map((t) => t.topic)).toEqual([TOPIC]);
    // The topic's own delete.retention.ms (this one set to 0), against which the page rates lag.
    expect(billing.topics[0]!.deleteRetentionMs).toBe(0);
    expect(billing.topics[0]!.partitions).toHaveLength(PARTITIONS);

    // The lease row a worker writes when it coordinates a Kafka group.
    await h.db.prisma.kafkaGroup.create({
      data: {
        organizationId: h.organizationId,
        groupId: "search",
        ownerWorkerId: "worker-x",
        epoch: 1,
        leaseExpiresAt: new Date(Date.now() + 60_000),
      },
    });
    const refused = await trpcCall("mutation", "consumerGroups.delete", { group: "search" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ message: expect.stringContaining("still active") });
    const afterRefusal = (await trpcCall("query", "consumerGroups.list")).body.result?.data as {
      groups: {
        group: string;
        protocol: string;
        coordinator: unknown;
        membership: unknown;
        membershipUnavailable: string | null;
      }[];
    };
    // No worker-x runs: the group's membership cannot be asked for, and the page says whom it asked.
    expect(afterRefusal.groups.find((g) => g.group === "search")).toMatchObject({
      protocol: "kafka",
      coordinator: { workerId: "worker-x", live: true },
      membership: null,
      membershipUnavailable: expect.stringContaining("worker worker-x"),
    });
    // A REST group has no membership and nothing to explain.
    expect(afterRefusal.groups.find((g) => g.group === "billing")).toMatchObject({
      protocol: "rest",
      membership: null,
      membershipUnavailable: null,
    });

    // The lease lapses (its consumers left, no worker holds it): the group is Empty, as Kafka says.
    await h.db.prisma.kafkaGroup.update({
      where: { organizationId_groupId: { organizationId: h.organizationId, groupId: "search" } },
      data: { leaseExpiresAt: new Date(Date.now() - 60_000) },
    });
    const idle = (await trpcCall("query", "consumerGroups.list", { group: "search" })).body.result?.data as {
      groups: { group: string; coordinator: unknown; membership: unknown; membershipUnavailable: unknown }[];
    };
    expect(idle.groups).toEqual([
      expect.objectContaining({
        group: "search",
        coordinator: { workerId: "worker-x", live: false },
        membership: expect.objectContaining({ state: "Empty", members: [] }),
        membershipUnavailable: null,
      }),
    ]);
    const one = (await trpcCall("query", "consumerGroups.list", { group: "billing" })).body.result?.data as {
      groups: { group: string }[];
    };
    expect(one.groups.map((g) => g.group)).toEqual(["billing"]);
    const none = (await trpcCall("query", "consumerGroups.list", { group: "nobody" })).body.result?.data as {
      groups: unknown[];
    };
    expect(none.groups).toEqual([]);

    const deleted = await trpcCall("mutation", "consumerGroups.delete", { group: "preview" });
    expect(deleted.body.result?.data).toEqual({ group: "preview", deleted: true });
    const after = (await trpcCall("query", "consumerGroups.list")).body.result?.data as {
      groups: { group: string }[];
    };
    expect(after.groups.map((g) => g.group)).not.toContain("preview");
    expect((await trpcCall("mutation", "consumerGroups.delete", { group: "preview" })).status).toBe(404);
  });
});

describe("streaming routes go through the one access check", () => {
  it("refuses a key without records:read (as the compliance role is) and hides other tenants' topics", async () => {
    const meta = restClient(h.server, await issueKey(h, "meta", ["topics:read", "groups:read"]));
    for (const mode of ["replay", "snapshot"] as const) {
      const error = await meta.stream(TOPIC, { mode }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LastwordApiError);
      expect(error).toMatchObject({ status: 403, code: "INSUFFICIENT_SCOPE" });
    }
    expect(await meta.keys.get(TOPIC, "flag-2").catch((e: unknown) => e)).toMatchObject({ status: 403 });

    const stranger = restClient(h.server, (await provisionTenantKey(h.server, "Other")).key);
    expect(await stranger.stream(TOPIC).catch((e: unknown) => e)).toMatchObject({ status: 404 });
    expect(await stranger.replayToMap(TOPIC).catch((e: unknown) => e)).toMatchObject({
      code: "TOPIC_NOT_FOUND",
    });
    const anonymous = await h.server.handleRest(new Request(`${PUBLIC_URL}/api/v1/topics/${TOPIC}/snapshot`));
    expect(anonymous.status).toBe(401);
  });
});
