import { createPrisma } from "@lastword/db";
import { TcpProxy } from "@lastword/db/testing";
import { ManualClock } from "@lastword/logstore";
import { describe, expect, it } from "vitest";
import { API_KEY_CACHE_MS, resolveIdentity } from "../src/auth/request-identity";
import { isDatabaseUnreachable } from "../src/errors/database-unavailable";
import { forgetTenantQuota, QUOTA_CACHE_MS, tenantQuota } from "../src/services/rate-limit.service";
import { TOPIC_ROUTING_CACHE_MS, topicRouting } from "../src/services/topic.service";
import { createQuota, provisionTenantKey, rest, str } from "./api-harness";
import { issueKey, useTenantWorld } from "./tenant-world";

// The request path reuses API-key rows, tenant quotas and topic routing for ≤ 1 s per process
// (cache/lookup-cache.ts): what another process changes in Postgres (a revocation, a topic
// deletion, a quota) must take effect within 1 s, what this process changes at once, and while
// Postgres is unreachable the last values found are served (never a "not found"). The server reads
// a manual clock: a TTL runs out when the test moves it, so "within 1 s" is checked without waiting.
const clock = new ManualClock();
const h = useTenantWorld("request_caches", { clock });

describe("cached API keys", () => {
  it("keeps the caches under 1 s", () => {
    expect(API_KEY_CACHE_MS).toBeLessThanOrEqual(1000);
    expect(QUOTA_CACHE_MS).toBeLessThanOrEqual(1000);
    expect(TOPIC_ROUTING_CACHE_MS).toBeLessThanOrEqual(1000);
  });

  it("refuses a key revoked by another process within 1 s", async () => {
    const key = await issueKey(h, "revoked-elsewhere");
    // Warm the cache with the key's row, as a busy caller would.
    for (let i = 0; i < 3; i++)
      expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(200);
    // Another web process revokes it: only Postgres changes, this process is not told.
    await h.db.prisma.apiKey.updateMany({
      where: { referenceId: h.organizationId, name: "revoked-elsewhere" },
      data: { enabled: false },
    });
    // No time has passed on the server's clock: the cached row still answers.
    expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(200);
    clock.advance(API_KEY_CACHE_MS + 1);
    const answer = await rest(h.server, { apiKey: key }, "GET", "/topics");
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe("UNAUTHENTICATED");
    // And it stays refused.
    expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(401);
  });
});

describe("topics on the produce path", () => {
  it("fails a produce to a topic deleted through the API, and one deleted by another process", async () => {
    const key = await issueKey(h, "producer");
    const produce = (topic: string) =>
      rest(h.server, { apiKey: key }, "POST", `/topics/${topic}/records`, {
        records: [{ key: str("k"), value: str("v") }],
      });
    for (const topic of ["gone-api", "gone-db"]) {
      expect(
        (await rest(h.server, { apiKey: key }, "POST", "/topics", { name: topic, partitions: 2 })).status,
      ).toBe(201);
      expect((await produce(topic)).status).toBe(200);
      expect((await produce(topic)).status).toBe(200);
    }

    expect((await rest(h.server, { apiKey: key }, "DELETE", "/topics/gone-api")).status).toBe(200);
    const afterApi = await produce("gone-api");
    expect(afterApi.status).toBe(404);
    expect(afterApi.body.code).toBe("TOPIC_NOT_FOUND");

    await h.db.prisma.topic.deleteMany({ where: { organizationId: h.organizationId, name: "gone-db" } });
    clock.advance(TOPIC_ROUTING_CACHE_MS + 1);
    const answer = await produce("gone-db");
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe("TOPIC_NOT_FOUND");
  });

  it("counts exactly the acknowledged records and bytes in today's usage", async () => {
    const key = await issueKey(h, "counted");
    const before = await rest(h.server, { apiKey: key }, "GET", "/tenant/usage");
    const today = before.body.today as Record<string, number>;
    expect(
      (await rest(h.server, { apiKey: key }, "POST", "/topics", { name: "counted", partitions: 3 })).status,
    ).toBe(201);
    const records = Array.from({ length: 50 }, (_, i) => ({
      key: str(`key-${i}`),
      value: str("x".repeat(i)),
    }));
    const produced = await rest(h.server, { apiKey: key }, "POST", "/topics/counted/records", { records });
    expect(produced.status).toBe(200);
    const bytes = records.reduce((n, r) => n + r.key.data.length + r.value.data.length, 0);
    const after = await rest(h.server, { apiKey: key }, "GET", "/tenant/usage");
    expect(after.body.today).toEqual({
      producedRecords: (today.producedRecords ?? 0) + 50,
      producedBytes: (today.producedBytes ?? 0) + bytes,
    });
  });
});

describe("topic changes made through this process", () => {
  it("apply to the next produce at once: created, compacted, partitions added", async () => {
    const key = await issueKey(h, "changes");
    const call = (method: string, path: string, body?: unknown) =>
      rest(h.server, { apiKey: key }, method, path, body);
    const produce = (record: Record<string, unknown>) =>
      call("POST", "/topics/changing/records", { records: [{ value: str("v"), ...record }] });

    // "Not found" is cached for the TTL; creating the topic here forgets it.
    expect((await produce({ key: str("k") })).body.code).toBe("TOPIC_NOT_FOUND");
    expect((await call("POST", "/topics", { name: "changing", partitions: 2 })).status).toBe(201);
    expect((await produce({ key: str("k") })).status).toBe(200);

    // Two partitions are cached; adding two makes partition 3 exist for the very next produce.
    expect((await produce({ key: str("k"), partition: 3 })).body.code).toBe("PARTITION_NOT_FOUND");
    expect((await call("POST", "/topics/changing/partitions", { count: 4 })).status).toBe(200);
    const named = await produce({ key: str("k"), partition: 3 });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect(named.body.results).toEqual([{ partition: 3, offset: 0 }]);

    // A keyless record is fine until the topic is compacted, then refused at once.
    expect((await produce({ key: null })).status).toBe(200);
    expect(
      (await call("PATCH", "/topics/changing/configs", { set: { "cleanup.policy": "compact" } })).status,
    ).toBe(200);
    const keyless = await produce({ key: null });
    expect(keyless.status).toBe(422);
    expect(keyless.body.code).toBe("NULL_KEY_ON_COMPACTED_TOPIC");
  });
});

describe("cached tenant quotas", () => {
  it("applies a quota set by another process within 1 s, and one forgotten here at once", async () => {
    const other = await provisionTenantKey(h.server, "Quota");
    const { key } = other;
    const list = () => rest(h.server, { apiKey: key }, "GET", "/topics");
    expect((await list()).status).toBe(200); // caches the default quota (500 requests/s)

    // Another process lowers the request rate to 1/s: only Postgres changes.
    await createQuota(h.db.prisma, other.organizationId, { requestsPerSecond: 1 });
    clock.advance(QUOTA_CACHE_MS + 1);
    // The first call may open a new one-second window (allowed); the second is over 1/s either way.
    await list();
    const answer = await list();
    expect(answer.status).toBe(429);
    expect(answer.body.code).toBe("RATE_LIMITED");

    // Raised again, and this process is told: the next request sees it.
    await h.db.prisma.quota.update({
      where: { organizationId: other.organizationId },
      data: { requestsPerSecond: 1000 },
    });
    forgetTenantQuota(h.db.prisma, other.organizationId);
    expect((await list()).status).toBe(200);
  });
});

describe("while Postgres is unreachable", () => {
  it("serves the last API key, quota and topic found, never a cached 'not found'", async () => {
    const key = await issueKey(h, "outage");
    expect(
      (await rest(h.server, { apiKey: key }, "POST", "/topics", { name: "outage", partitions: 3 })).status,
    ).toBe(201);
    const upstream = new URL(h.db.url);
    const relay = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
    // This process's view of the database, through a relay the test cuts.
    const prisma = createPrisma(relay.relayUrl(h.db.url), { maxConnections: 2 });
    // Its own clock: a PrismaClient's caches are aged by one clock.
    const viewClock = new ManualClock();
    const view = { prisma, clock: viewClock };
    const identity = () =>
      resolveIdentity({ auth: undefined as never, ...view }, new Headers({ authorization: `Bearer ${key}` }));
    try {
      const before = {
        identity: await identity(),
        quota: await tenantQuota(view, h.organizationId),
        routing: await topicRouting(view, h.organizationId, "outage"),
      };
      expect(before.routing.partitionIds.size).toBe(3);
      await expect(topicRouting(view, h.organizationId, "not-there")).rejects.toMatchObject({
        code: "TOPIC_NOT_FOUND",
      });

      relay.cut();
      // Past every TTL: each lookup asks the database again, and fails to reach it.
      viewClock.advance(Math.max(API_KEY_CACHE_MS, QUOTA_CACHE_MS, TOPIC_ROUTING_CACHE_MS) + 1);
      expect((await identity()).tenantId).toBe(h.organizationId);
      expect(await tenantQuota(view, h.organizationId)).toEqual(before.quota);
      expect((await topicRouting(view, h.organizationId, "outage")).partitionIds).toEqual(
        before.routing.partitionIds,
      );

      // Found nothing last time: the outage is reported, not a stale 404.
      const missing = await topicRouting(view, h.organizationId, "not-there").catch((e) => e);
      expect(missing.code).not.toBe("TOPIC_NOT_FOUND");
      expect(isDatabaseUnreachable(missing)).toBe(true);
      // Never looked up: nothing to serve.
      for (const unknown of [
        await tenantQuota(view, "no-such-tenant").catch((e) => e),
        await topicRouting(view, "no-such-tenant", "outage").catch((e) => e),
      ]) {
        expect(isDatabaseUnreachable(unknown)).toBe(true);
      }

      // Back: fresh values again (a change made during the outage shows).
      await h.db.prisma.topic.update({
        where: { organizationId_name: { organizationId: h.organizationId, name: "outage" } },
        data: { partitionCount: 4 },
      });
      relay.restore();
      viewClock.advance(TOPIC_ROUTING_CACHE_MS + 1);
      expect((await topicRouting(view, h.organizationId, "outage")).partitionCount).toBe(4);
    } finally {
      await prisma.$disconnect();
      await relay.close();
    }
  });
});
