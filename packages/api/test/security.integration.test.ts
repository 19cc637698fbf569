import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "../src/index";
import { forgetTenantQuota } from "../src/services/rate-limit.service";
import {
  createQuota,
  invite,
  rest,
  type Session,
  setActiveTenant,
  signUp,
  str,
  trpc,
  useHarness,
} from "./api-harness";

const h = useHarness("security");
let ownerA: Session;
let keyA: string;
let keyIdA: string;
let keyB: string;
let sessionB: Session;
let memberIdA: string;
let invitationIdA: string;

// Tenant A's resources, addressed by tenant B. Every REST route with a path parameter and every
// procedure that names a resource must answer 404, exactly as for something that does not exist.
const REST_BODIES: Record<string, unknown> = {
  "POST /topics/{topic}/records": { records: [{ key: str("k"), value: str("v") }] },
  "PATCH /topics/{topic}/configs": { set: { "retention.ms": 1000 } },
  "POST /topics/{topic}/partitions": { count: 5 },
  "POST /consumer-groups/{group}/offsets": { offsets: [{ topic: "secret", partition: 0, offset: 1 }] },
  "POST /consumer-groups/{group}/reset": { topic: "secret", to: "earliest" },
  "POST /topics/{topic}/partitions/{partition}/delete-records": { beforeOffset: 0 },
  "POST /topics/{topic}/partitions/{partition}/clean": {},
  "POST /erasure-requests/{id}/extensions": { deadlineAt: "2099-01-01T00:00:00.000Z", reason: "r" },
  "POST /erasure-requests/{id}/reverify": {},
  "PUT /api-keys/{id}/rules": { rules: [] },
  "POST /transactions/{transactionalId}/abort": {},
};

const TENANT_WIDE_PROCEDURES = [
  "transactions.list",
  "topics.create",
  "topics.list",
  "apiKeys.create",
  "apiKeys.list",
  "tenant.current",
  "members.list",
  "members.invite",
  "tenant.usage",
  // The caller's own tenant: its overview, and renaming it (an admin's).
  "tenant.overview",
  "tenant.rename",
  "erasure.list",
  "erasure.topics",
  "audit.list",
  "audit.verify",
  "audit.export",
  // List the caller's own groups, and their lag over time.
  "consumerGroups.list",
  "consumerGroups.lagHistory",
  // The caller's own schema registry (its subjects; a topic's subjects by name, none for another's topic).
  "schemas.subjects",
  "schemas.check",
  "schemas.register",
  "schemas.setCompatibility",
  "schemas.forTopic",
];

// Answered by the person an invitation names, whatever tenant they are in (grants.integration.test.ts).
const PERSONAL_PROCEDURES = ["invitations.accept", "invitations.decline"];

function resourceInputs(): Record<string, { kind: "query" | "mutation"; input: unknown }> {
  return {
    "topics.get": { kind: "query", input: { topic: "secret" } },
    "topics.cleanerRuns": { kind: "query", input: { topic: "secret" } },
    "topics.history": { kind: "query", input: { topic: "secret" } },
    "topics.kafkaClients": { kind: "query", input: { topic: "secret" } },
    "topics.durability": { kind: "query", input: { topic: "secret" } },
    // Without a topic it names only the brokers, the same for every tenant; with one, its view.
    "kafka.connection": { kind: "query", input: { topic: "secret" } },
    "topics.segments": { kind: "query", input: { topic: "secret", partition: 0 } },
    "topics.delete": { kind: "mutation", input: { topic: "secret" } },
    "topics.alterConfigs": { kind: "mutation", input: { topic: "secret", set: { "retention.ms": 1000 } } },
    "topics.addPartitions": { kind: "mutation", input: { topic: "secret", count: 5 } },
    "records.produce": {
      kind: "mutation",
      input: { topic: "secret", records: [{ key: str("k"), value: str("v") }] },
    },
    "records.read": { kind: "query", input: { topic: "secret", partition: 0 } },
    "schemas.subject": { kind: "query", input: { subject: "secret-value" } },
    "schemas.delete": { kind: "mutation", input: { subject: "secret-value" } },
    "schemas.encode": { kind: "mutation", input: { subject: "secret-value", value: {} } },
    "records.search": { kind: "query", input: { topic: "secret" } },
    "consumerGroups.delete": { kind: "mutation", input: { group: "g-secret" } },
    "transactions.abort": { kind: "mutation", input: { transactionalId: "tx-secret" } },
    "records.offsets": { kind: "query", input: { topic: "secret", partition: 0, timestamp: 0 } },
    "records.deleteKey": { kind: "mutation", input: { topic: "secret", key: "k" } },
    "topics.requestClean": { kind: "mutation", input: { topic: "secret", partition: 0 } },
    "records.deleteRecords": { kind: "mutation", input: { topic: "secret", partition: 0, beforeOffset: 0 } },
    "consumerGroups.get": { kind: "query", input: { group: "g-secret" } },
    "consumerGroups.commitOffsets": {
      kind: "mutation",
      input: { group: "g-secret", offsets: [{ topic: "secret", partition: 0, offset: 1 }] },
    },
    "consumerGroups.lag": { kind: "query", input: { group: "g-secret" } },
    "consumerGroups.reset": { kind: "mutation", input: { group: "g-secret", topic: "secret", to: "latest" } },
    "consumerGroups.listForTopic": { kind: "query", input: { topic: "secret" } },
    "keys.get": { kind: "query", input: { topic: "secret", key: "k" } },
    "keys.versions": { kind: "query", input: { topic: "secret", key: "k" } },
    "apiKeys.revoke": { kind: "mutation", input: { id: keyIdA } },
    "apiKeys.setRules": { kind: "mutation", input: { id: keyIdA, rules: [] } },
    "erasure.create": { kind: "mutation", input: { keys: [str("k")], topics: ["secret"] } },
    "erasure.preflight": { kind: "mutation", input: { topics: ["secret"] } },
    "erasure.get": { kind: "query", input: { id: keyIdA } },
    "erasure.evidence": { kind: "query", input: { id: keyIdA, format: "csv" } },
    "erasure.extend": {
      kind: "mutation",
      input: { id: keyIdA, deadlineAt: "2099-01-01T00:00:00.000Z", reason: "r" },
    },
    "erasure.reverify": { kind: "mutation", input: { id: keyIdA } },
    "members.changeRole": { kind: "mutation", input: { memberId: memberIdA, role: "viewer" } },
    "members.remove": { kind: "mutation", input: { memberId: memberIdA } },
    "members.revokeInvitation": { kind: "mutation", input: { invitationId: invitationIdA } },
    "topics.configHistory": { kind: "query", input: { topic: "secret" } },
  };
}

beforeAll(async () => {
  ownerA = await signUp(h.server, "a@example.com", "Tenant A");
  const created = await trpc(h.server, { cookie: ownerA.cookie }, "mutation", "apiKeys.create", {
    name: "a-admin",
    scopes: ["admin"],
  });
  ({ key: keyA, id: keyIdA } = created.body.result!.data as { key: string; id: string });
  expect(
    (await rest(h.server, { apiKey: keyA }, "POST", "/topics", { name: "secret", partitions: 2 })).status,
  ).toBe(201);
  memberIdA = (await member(ownerA.userId)).id;
  ({ invitationId: invitationIdA } = await invite(
    h.server,
    { cookie: ownerA.cookie },
    "pending@a.example",
    "viewer",
  ));
  const group = await h.db.prisma.consumerGroup.create({
    data: { organizationId: (await member(ownerA.userId)).organizationId, name: "g-secret" },
  });
  expect(group.id).toBeTruthy();
  // An open Kafka transaction of A's: B may neither see nor abort it.
  await h.db.prisma.kafkaTransaction.create({
    data: {
      organizationId: (await member(ownerA.userId)).organizationId,
      transactionalId: "tx-secret",
      state: "Ongoing",
      producerId: 1n,
      producerEpoch: 0,
    },
  });
  sessionB = await signUp(h.server, "b@example.com", "Tenant B");
  const createdB = await trpc(h.server, { cookie: sessionB.cookie }, "mutation", "apiKeys.create", {
    name: "b-admin",
    scopes: ["admin"],
  });
  keyB = (createdB.body.result!.data as { key: string }).key;
});

async function member(userId: string) {
  return h.db.prisma.member.findFirstOrThrow({ where: { userId } });
}

async function snapshotOfA() {
  const topics = await h.db.prisma.topic.findMany({
    where: { name: "secret" },
    include: { partitions: true },
  });
  const keys = await h.db.prisma.apiKey.findMany({ where: { id: keyIdA } });
  const groups = await h.db.prisma.consumerGroup.findMany({
    where: { name: "g-secret" },
    select: { id: true },
  });
  const invitations = await h.db.prisma.invitation.findMany({
    where: { id: invitationIdA },
    select: { status: true },
  });
  const transactions = await h.db.prisma.kafkaTransaction.findMany({
    where: { transactionalId: "tx-secret" },
    select: { state: true, abortRequestedAt: true },
  });
  return JSON.stringify({ topics, keys: keys.map((k) => k.enabled), groups, invitations, transactions });
}

describe("tenant isolation", () => {
  it("answers 404 on every REST route that names another tenant's resource, and changes nothing", async () => {
    const before = await snapshotOfA();
    const doc = await rest(h.server, {}, "GET", "/openapi.json");
    const paths = doc.body.paths as Record<string, Record<string, unknown>>;
    let walked = 0;
    for (const [path, operations] of Object.entries(paths)) {
      if (!path.includes("{")) continue;
      for (const method of Object.keys(operations)) {
        const route = `${method.toUpperCase()} ${path}`;
        const concrete = path
          .replace("{topic}", "secret")
          .replace("{partition}", "0")
          .replace("{key}", "k")
          .replace("{group}", "g-secret")
          .replace("{transactionalId}", "tx-secret")
          .replace("{id}", keyIdA);
        const res = await rest(
          h.server,
          { apiKey: keyB },
          method.toUpperCase(),
          concrete,
          REST_BODIES[route],
        );
        expect(res.status, route).toBe(404);
        expect(res.contentType, route).toBe("application/problem+json");
        walked++;
      }
    }
    expect(walked).toBeGreaterThanOrEqual(10);
    expect(await snapshotOfA()).toBe(before);
    // The audit listing is tenant-wide: B sees its own trail, none of A's events.
    const trail = await rest(h.server, { apiKey: keyB }, "GET", "/audit/events?limit=500");
    expect(trail.status).toBe(200);
    const targets = (trail.body.events as { targetId: string | null }[]).map((e) => e.targetId);
    expect(targets).not.toContain(keyIdA);
    expect(targets).not.toContain(invitationIdA);
  });

  it("answers 404 on every tRPC procedure that names another tenant's resource", async () => {
    const before = await snapshotOfA();
    const inputs = resourceInputs();
    const procedures = Object.keys(appRouter._def.procedures);
    expect(
      procedures.filter(
        (p) => !(p in inputs) && !TENANT_WIDE_PROCEDURES.includes(p) && !PERSONAL_PROCEDURES.includes(p),
      ),
    ).toEqual([]);
    for (const [path, { kind, input }] of Object.entries(inputs)) {
      const res = await trpc(h.server, { cookie: sessionB.cookie }, kind, path, input);
      expect(res.status, path).toBe(404);
    }
    expect(await snapshotOfA()).toBe(before);
  });

  it("lists only the caller's own topics and keys", async () => {
    const topics = await rest(h.server, { apiKey: keyB }, "GET", "/topics");
    expect(topics.body.topics).toEqual([]);
    const keys = await rest(h.server, { apiKey: keyB }, "GET", "/api-keys");
    expect((keys.body.apiKeys as { id: string }[]).map((k) => k.id)).not.toContain(keyIdA);
    const transactions = await rest(h.server, { apiKey: keyB }, "GET", "/transactions");
    expect(transactions.body.transactions).toEqual([]);
  });
});

describe("scopes and roles", () => {
  it("a consume-only key can read but cannot produce, alter or create", async () => {
    const created = await trpc(h.server, { cookie: ownerA.cookie }, "mutation", "apiKeys.create", {
      name: "consumer",
      scopes: ["records:read", "topics:read"],
    });
    const consumer = (created.body.result!.data as { key: string }).key;
    expect((await rest(h.server, { apiKey: consumer }, "GET", "/topics/secret")).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/topics/secret/records", REST_BODIES["POST /topics/{topic}/records"]],
      ["PATCH", "/topics/secret/configs", REST_BODIES["PATCH /topics/{topic}/configs"]],
      ["POST", "/topics", { name: "nope" }],
      ["DELETE", "/topics/secret", undefined],
      ["POST", "/api-keys", { name: "escalate" }],
    ] as const) {
      const res = await rest(h.server, { apiKey: consumer }, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe("INSUFFICIENT_SCOPE");
    }
  });

  it("a key cannot be given scopes its creator lacks", async () => {
    const created = await trpc(h.server, { cookie: ownerA.cookie }, "mutation", "apiKeys.create", {
      name: "keys-only",
      scopes: ["keys:write", "topics:read"],
    });
    const limited = (created.body.result!.data as { key: string }).key;
    const escalate = await rest(h.server, { apiKey: limited }, "POST", "/api-keys", {
      name: "x",
      scopes: ["admin"],
    });
    expect(escalate.status).toBe(403);
    expect(escalate.body).toMatchObject({ code: "INSUFFICIENT_SCOPE", missingScopes: ["admin"] });
  });

  it("the compliance role sees topic metadata but never record values", async () => {
    const officer = await signUp(h.server, "officer@example.com", "Officer");
    const tenantA = (await member(ownerA.userId)).organizationId;
    await h.db.prisma.member.create({
      data: {
        id: `m-${Date.now()}`,
        organizationId: tenantA,
        userId: officer.userId,
        role: "compliance",
        createdAt: new Date(),
      },
    });
    const switched = await setActiveTenant(h.server, officer, tenantA);
    expect(switched.status).toBe(200);
    const me = await trpc(h.server, { cookie: officer.cookie }, "query", "tenant.current");
    expect(me.body.result?.data).toMatchObject({ tenantId: tenantA, role: "compliance" });
    expect(
      (await trpc(h.server, { cookie: officer.cookie }, "query", "topics.get", { topic: "secret" })).status,
    ).toBe(200);
    const read = await trpc(h.server, { cookie: officer.cookie }, "query", "records.read", {
      topic: "secret",
      partition: 0,
    });
    expect(read.status).toBe(403);
    expect(read.body.error?.data.code).toBe("INSUFFICIENT_SCOPE");
  });
});

describe("rate limits", () => {
  it("answers 429 with Retry-After once the tenant's request rate is used up", async () => {
    const tenantA = (await member(ownerA.userId)).organizationId;
    await createQuota(h.db.prisma, tenantA, { requestsPerSecond: 3 });
    forgetTenantQuota(h.db.prisma, tenantA);
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => rest(h.server, { apiKey: keyA }, "GET", "/topics")),
      );
      const limited = answers.filter((a) => a.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(4);
      expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(limited[0]!.body.code).toBe("RATE_LIMITED");
    } finally {
      await h.db.prisma.quota.delete({ where: { organizationId: tenantA } });
      forgetTenantQuota(h.db.prisma, tenantA);
    }
  });
});

describe("storage quota", () => {
  it("refuses produce with 429 once the tenant stores more than its quota", async () => {
    const tenantA = (await member(ownerA.userId)).organizationId;
    const partition = await h.db.prisma.partition.findFirstOrThrow({
      where: { topic: { organizationId: tenantA } },
    });
    // What the owning worker reports each tick; no worker runs here, so the test stands in for it.
    await h.db.prisma.partition.update({ where: { id: partition.id }, data: { stats: { sizeBytes: 5000 } } });
    await createQuota(h.db.prisma, tenantA, { maxStoredBytes: 4096n });
    forgetTenantQuota(h.db.prisma, tenantA);
    try {
      const refused = await rest(
        h.server,
        { apiKey: keyA },
        "POST",
        "/topics/secret/records",
        REST_BODIES["POST /topics/{topic}/records"],
      );
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body).toMatchObject({ code: "QUOTA_EXCEEDED", quota: "storedBytes" });
      expect(refused.headers.get("retry-after")).toBe("60");
      const usage = await rest(h.server, { apiKey: keyA }, "GET", "/tenant/usage");
      expect(usage.body).toMatchObject({ storedBytes: 5000, partitions: 2, quota: { maxStoredBytes: 4096 } });
    } finally {
      await h.db.prisma.quota.delete({ where: { organizationId: tenantA } });
      forgetTenantQuota(h.db.prisma, tenantA);
      await h.redis.del(`${h.redisPrefix}:stored:${tenantA}`);
    }
  });
});

describe("fuzzing", () => {
  const json = fc.jsonValue({ maxDepth: 3 });

  it("never answers 500 to arbitrary produce and create bodies", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          json,
          fc.record({
            records: fc.array(fc.record({ key: json, value: json }, { requiredKeys: [] }), { maxLength: 3 }),
          }),
        ),
        fc.constantFrom(
          "/topics",
          "/topics/missing/records",
          "/topics/secret/configs",
          "/consumer-groups/g/offsets",
        ),
        async (body, path) => {
          const method = path.endsWith("configs") ? "PATCH" : "POST";
          const res = await rest(h.server, { apiKey: keyB }, method, path, JSON.stringify(body));
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) expect(res.contentType).toBe("application/problem+json");
        },
      ),
      { numRuns: 150 },
    );
  });

  it("never answers 500 to arbitrary paths and query strings", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(fc.constantFrom("topics", "partitions", "records", "keys", "0", "-1"), fc.string()),
          {
            maxLength: 6,
          },
        ),
        fc.dictionary(fc.constantFrom("offset", "limit", "cursor", "keyFormat", "partition"), fc.string()),
        fc.constantFrom("GET", "DELETE", "POST"),
        async (segments, query, method) => {
          const path = `/${segments.map(encodeURIComponent).join("/")}?${new URLSearchParams(query)}`;
          const res = await rest(
            h.server,
            { apiKey: keyB },
            method,
            path,
            method === "POST" ? {} : undefined,
          );
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
  });
});
