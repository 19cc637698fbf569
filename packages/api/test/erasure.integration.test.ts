import { eventually } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionForKey } from "../src/index";
import { type Harness, rest, tamperAuditEvents } from "./api-harness";
import { CLOSED_AT_RISK_TIMELINE, type ErasureFixture, startErasureFixture } from "./erasure-fixture";

// Configs in seconds: a 300 ms scheduler tick, tombstones kept 4 s, a 20 s deadline.
const TICK_MS = 300;
const DEADLINE_MS = 20_000;

let fixture: ErasureFixture;
let h: Harness;
let admin: string;
let compliance: string;
let organizationId: string;

interface Tombstone {
  topic: string;
  partition: number;
  offset: number;
  status: string;
  purgedAt: string | null;
  passRequestedAt: string | null;
  expiredAt: string | null;
  purgeEvidence: {
    result: string;
    bytesScanned: number;
    segments: { sha256: string; baseOffset: number }[];
  } | null;
  expiryEvidence: { result: string } | null;
}

interface Detail {
  id: string;
  status: string;
  statusReason: string | null;
  deadlineAt: string;
  tombstones: Tombstone[];
  laggingGroups: { group: string; topic: string; horizonNear: boolean }[];
  missedGroups: {
    group: string;
    topic: string;
    partition: number;
    tombstoneOffset: number;
    committedOffset: number;
    expiredAt: string | null;
  }[];
  preflight: Record<string, { meetsDeadline: boolean; fix: Record<string, string> | null }>;
  timeline: { action: string }[];
}

async function produce(topic: string, records: [string, string][]) {
  const res = await rest(h.server, { apiKey: admin }, "POST", `/topics/${topic}/records`, {
    records: records.map(([k, v]) => ({
      key: { type: "string", data: k },
      value: { type: "string", data: v },
    })),
  });
  expect(res.status).toBe(200);
}

async function keysIn(topic: string, partition: number): Promise<string[]> {
  const res = await rest(
    h.server,
    { apiKey: admin },
    "GET",
    `/topics/${topic}/partitions/${partition}/records?offset=0&limit=1000`,
  );
  return (res.body.records as { key: { data: string } }[]).map((r) => r.key.data);
}

/** A people partition other than the one user-1 hashes to. */
function strayPartition(): number {
  return (partitionForKey(Buffer.from("user-1"), 3) + 1) % 3;
}

beforeAll(async () => {
  fixture = await startErasureFixture("erasure", TICK_MS);
  ({ h, admin, compliance, organizationId } = fixture);
  // people: Kafka's default max lag (never), a 60 s segment.ms, and a min.compaction.lag.ms longer
  // than the deadline: its own configs would keep old values past it.
  await rest(h.server, { apiKey: admin }, "POST", "/topics", {
    name: "people",
    partitions: 3,
    configs: {
      "cleanup.policy": "compact",
      "segment.ms": 60_000,
      "min.compaction.lag.ms": 25_000,
      "delete.retention.ms": 4_000,
    },
  });
  // orders: its configs meet the deadline on their own.
  await rest(h.server, { apiKey: admin }, "POST", "/topics", {
    name: "orders",
    partitions: 2,
    configs: {
      "cleanup.policy": "compact",
      "segment.ms": 1_000,
      "max.compaction.lag.ms": 2_000,
      "delete.retention.ms": 4_000,
    },
  });
  await produce("people", [
    ["user-1", "Ada Lovelace, 12 Analytical St"],
    ["user-2", "Bob, 3 Difference Rd"],
    ["user-3", "Cy, stays"],
    ["user-1", "Ada Lovelace, moved"],
  ]);
  // A producer that picked a partition itself: user-1 also lives outside its murmur2 partition.
  const res = await rest(h.server, { apiKey: admin }, "POST", "/topics/people/records", {
    records: [
      {
        key: { type: "string", data: "user-1" },
        value: { type: "string", data: "Ada, misrouted" },
        partition: strayPartition(),
      },
    ],
  });
  expect(res.status).toBe(200);
  await produce("orders", [
    ["user-1", "order 1"],
    ["user-2", "order 2"],
    ["user-4", "order 4 stays"],
  ]);
}, 60_000);

afterAll(async () => {
  await fixture?.close();
});

describe("erasure requests", () => {
  let detail: Detail;

  it("flags a topic whose configs cannot meet the deadline and offers the fix", async () => {
    const res = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-preflight", {
      topics: ["people", "orders"],
      deadlineAt: new Date(Date.now() + DEADLINE_MS).toISOString(),
    });
    expect(res.status).toBe(200);
    const byTopic = Object.fromEntries(
      (res.body.topics as { topic: string; preflight: { meetsDeadline: boolean; fix: object | null } }[]).map(
        (t) => [t.topic, t.preflight],
      ),
    );
    expect(byTopic.people?.meetsDeadline).toBe(false);
    expect(Object.keys(byTopic.people?.fix ?? {})).toEqual(["min.compaction.lag.ms"]);
    expect(byTopic.orders?.meetsDeadline).toBe(true);
    const report = await rest(h.server, { apiKey: compliance }, "GET", "/erasure-topics");
    expect(
      (report.body.topics as { topic: string; preflight: { meetsDeadline: boolean } }[]).map((t) => t.topic),
    ).toEqual(["orders", "people"]);
  });

  it("writes a tombstone per key in its murmur2 partition and in every partition the key index finds it in", async () => {
    const slowPartition = partitionForKey(Buffer.from("user-1"), 3);
    await rest(h.server, { apiKey: admin }, "POST", "/consumer-groups/slow-reader/offsets", {
      offsets: [{ topic: "people", partition: slowPartition, offset: 0 }],
    });
    const res = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-requests", {
      keys: [
        { type: "string", data: "user-1" },
        { type: "string", data: "user-2" },
      ],
      topics: ["people", "orders"],
      deadlineAt: new Date(Date.now() + DEADLINE_MS).toISOString(),
      requester: "dpo@example.com",
      notes: "Art. 17 request #1",
    });
    expect(res.status).toBe(201);
    detail = res.body as unknown as Detail;
    // people's preflight misses the deadline: at risk from filing, with the reason and its fix.
    expect(detail.status).toBe("at-risk");
    expect(detail.statusReason).toMatch(/^Filed at risk: people — .* Fix: min\.compaction\.lag\.ms=\d+\.$/);
    expect(detail.tombstones).toHaveLength(5);
    expect(detail.tombstones.every((t) => t.offset >= 0 && t.status === "tombstoned")).toBe(true);
    expect(detail.tombstones.map((t) => `${t.topic}/${t.partition}`).sort()).toEqual(
      [
        `people/${partitionForKey(Buffer.from("user-1"), 3)}`,
        `people/${strayPartition()}`,
        `people/${partitionForKey(Buffer.from("user-2"), 3)}`,
        `orders/${partitionForKey(Buffer.from("user-1"), 2)}`,
        `orders/${partitionForKey(Buffer.from("user-2"), 2)}`,
      ].sort(),
    );
    expect(detail.preflight.people?.meetsDeadline).toBe(false);
    expect(detail.timeline.map((e) => e.action)).toEqual([
      "erasure.request.created",
      "erasure.tombstones.written",
      "erasure.at-risk",
    ]);
  });

  it("never lets the compliance role read record values", async () => {
    const res = await rest(
      h.server,
      { apiKey: compliance },
      "GET",
      "/topics/people/partitions/0/records?offset=0",
    );
    expect(res.status).toBe(403);
  });

  it("purges and verifies before the deadline on idle partitions, flags the lagging group, then proves the tombstones gone", async () => {
    let sawLaggingFlag = false;
    const current = await eventually("the request closed", DEADLINE_MS + 15_000, async () => {
      const res = await rest(h.server, { apiKey: compliance }, "GET", `/erasure-requests/${detail.id}`);
      const seen = res.body as unknown as Detail;
      if (seen.laggingGroups.some((g) => g.group === "slow-reader" && g.topic === "people" && g.horizonNear))
        sawLaggingFlag = true;
      return seen.status === "closed" ? seen : undefined;
    });
    expect(current.status).toBe("closed");
    expect(sawLaggingFlag).toBe(true);
    const deadline = Date.parse(current.deadlineAt);
    for (const t of current.tombstones) {
      expect(t.status).toBe("tombstone-expired");
      expect(Date.parse(t.purgedAt ?? "")).toBeLessThan(deadline);
      expect(t.purgeEvidence?.result).toBe("absent");
      expect(t.purgeEvidence?.bytesScanned).toBeGreaterThan(0);
      expect(t.purgeEvidence?.segments.every((s) => /^[0-9a-f]{64}$/.test(s.sha256))).toBe(true);
      expect(t.expiryEvidence?.result).toBe("absent");
      // people never compacts by its own configs: only the guard's rewrite, overriding
      // min.compaction.lag.ms once only the proof's time was left, can have purged it.
      if (t.topic === "people") expect(t.passRequestedAt).not.toBeNull();
    }
    expect(current.timeline.map((e) => e.action)).toEqual(CLOSED_AT_RISK_TIMELINE);
    // Closed, nothing pending: slow-reader (committed 0 in user-1's partition, never moved) stays
    // flagged for each tombstone there, with what it missed as the expiry proof recorded it; no
    // other group and no other partition is named.
    expect(current.laggingGroups).toEqual([]);
    const slowPartition = partitionForKey(Buffer.from("user-1"), 3);
    const behind = current.tombstones.filter((t) => t.topic === "people" && t.partition === slowPartition);
    expect(behind.length).toBeGreaterThan(0);
    expect(current.missedGroups).toEqual(
      behind.map((t) => ({
        group: "slow-reader",
        topic: "people",
        partition: slowPartition,
        tombstoneOffset: t.offset,
        committedOffset: 0,
        expiredAt: t.expiredAt,
      })),
    );
    // Physically gone from every partition of both topics; other keys kept.
    const people = [
      ...(await keysIn("people", 0)),
      ...(await keysIn("people", 1)),
      ...(await keysIn("people", 2)),
    ];
    const orders = [...(await keysIn("orders", 0)), ...(await keysIn("orders", 1))];
    expect(people.filter((k) => k === "user-1" || k === "user-2")).toEqual([]);
    expect(orders.filter((k) => k === "user-1" || k === "user-2")).toEqual([]);
    expect(people).toContain("user-3");
    expect(orders).toContain("user-4");
  }, 60_000);

  it("exports the evidence as CSV and JSON", async () => {
    const csv = await rest(
      h.server,
      { apiKey: compliance },
      "GET",
      `/erasure-requests/${detail.id}/evidence?format=csv`,
    );
    const lines = String(csv.body.content).trim().split("\r\n");
    expect(lines[0]).toContain("segmentSha256");
    // Every row names its subject key as text, next to its bytes.
    expect(lines[0]).toContain("subjectKey,subjectKeyIsText,subjectKeyBase64");
    expect(lines.slice(1).every((l) => l.includes(",absent,"))).toBe(true);
    expect(lines.slice(1).every((l) => /,user-[12],true,/.test(l))).toBe(true);
    const json = await rest(
      h.server,
      { apiKey: compliance },
      "GET",
      `/erasure-requests/${detail.id}/evidence?format=json`,
    );
    expect(JSON.parse(String(json.body.content)).status).toBe("closed");
    const trail = await rest(h.server, { apiKey: compliance }, "GET", "/audit/export?format=csv");
    expect(String(trail.body.content)).toContain("erasure.closed");
    // The export names each actor: the DPO's key with the member who created it.
    expect(String(trail.body.content)).toMatch(
      /,apiKey,[^,]+,"?API key ""dpo"" \(created by [^)]+\)"?,erasure\.request\.created,/,
    );
  });

  it("leads the request with one verdict per key and topic, and names who did each step", async () => {
    const res = await rest(h.server, { apiKey: compliance }, "GET", `/erasure-requests/${detail.id}`);
    const body = res.body as {
      verdicts: { key: { text: string }; topic: string; valuesLeft: number | null; tiers: string[] }[];
      timeline: { action: string; actor: { type: string; name: string } }[];
    };
    expect(body.verdicts.map((v) => [v.key.text, v.topic, v.valuesLeft, v.tiers])).toEqual(
      expect.arrayContaining([
        ["user-1", "people", 0, ["disk"]],
        ["user-2", "people", 0, ["disk"]],
        ["user-1", "orders", 0, ["disk"]],
        ["user-2", "orders", 0, ["disk"]],
      ]),
    );
    expect(body.verdicts).toHaveLength(4);
    expect(body.timeline[0]!.actor).toMatchObject({
      type: "apiKey",
      name: expect.stringMatching(/^API key "dpo" \(created by .+ <dpo@erasure\.example>\)$/),
    });
    expect(body.timeline.at(-1)!.actor.type).toBe("system");
    // A request filed without a requester names its caller, not an id.
    const unnamed = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-requests", {
      keys: [{ type: "string", data: "user-3" }],
      topics: ["orders"],
      deadlineAt: new Date(Date.now() + DEADLINE_MS).toISOString(),
    });
    expect((unnamed.body as { requester: string }).requester).toMatch(/^API key "dpo" \(created by .+\)$/);
  });

  it("lists the audit trail filtered, each event's actor named", async () => {
    const res = await rest(h.server, { apiKey: compliance }, "GET", "/audit/events?action=erasure.&limit=3");
    expect(res.status).toBe(200);
    const page = res.body as {
      events: { seq: number; action: string; actor: { name: string } }[];
      nextBeforeSeq: number | null;
    };
    expect(page.events).toHaveLength(3);
    expect(page.events.every((e) => e.action.startsWith("erasure."))).toBe(true);
    expect(page.events[0]!.seq).toBeGreaterThan(page.events[2]!.seq);
    expect(page.nextBeforeSeq).toBe(page.events[2]!.seq);
    const byKey = await rest(h.server, { apiKey: compliance }, "GET", "/audit/events?actorType=apiKey");
    const named = (byKey.body as { events: { actor: { name: string } }[] }).events.map((e) => e.actor.name);
    expect(named.some((n) => n.startsWith('API key "dpo" (created by '))).toBe(true);
    const next = await rest(
      h.server,
      { apiKey: compliance },
      "GET",
      `/audit/events?action=erasure.&beforeSeq=${page.nextBeforeSeq}`,
    );
    expect(
      (next.body as { events: { seq: number }[] }).events.every((e) => e.seq < page.nextBeforeSeq!),
    ).toBe(true);
  });

  it("names the first broken link after an audit row is edited in the database", async () => {
    const clean = await rest(h.server, { apiKey: compliance }, "GET", "/audit/verify");
    expect(clean.body).toMatchObject({ ok: true, firstBrokenSeq: null });
    const target = await h.db.prisma.auditEvent.findFirstOrThrow({
      where: { organizationId, action: "erasure.purged" },
    });
    await tamperAuditEvents(
      h.db.prisma,
      `UPDATE "AuditEvent" SET "createdAt" = "createdAt" - interval '1 day' WHERE "id" = $1`,
      target.id,
    );
    const broken = await rest(h.server, { apiKey: compliance }, "GET", "/audit/verify");
    expect(broken.body).toMatchObject({
      ok: false,
      firstBrokenSeq: target.seq,
      firstBroken: { action: "erasure.purged" },
    });
  });
});
