import { rmSync } from "node:fs";
import type { RunningWorker } from "@lastword/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY_CACHE_MS } from "../src/auth/request-identity";
import { type Harness, rest, startHarness, startHarnessWorker } from "./api-harness";

// The request path reuses API-key rows for API_KEY_CACHE_MS and reads topics fresh; what another
// process changes in Postgres (a revocation, a topic deletion) must still take effect within 1 s.
let h: Harness;
let worker: RunningWorker;
let dataDir: string;
let tenant: { organizationId: string; userId: string };

const str = (data: string) => ({ type: "string", data });

beforeAll(async () => {
  h = await startHarness("request_caches");
  ({ worker, dataDir } = await startHarnessWorker(h));
  tenant = await h.server.provisionTenant({
    name: "Caches",
    email: "caches@example.com",
    password: "caches-pass-1",
  });
});

afterAll(async () => {
  await worker?.stop();
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Calls until the answer is not 200; returns that answer and how long after `since` it came. */
async function untilRefused(
  call: () => Promise<{ status: number; body: Record<string, unknown> }>,
  since: number,
) {
  for (;;) {
    const answer = await call();
    if (answer.status !== 200) return { answer, afterMs: performance.now() - since };
    if (performance.now() - since > 5000) return { answer, afterMs: Number.POSITIVE_INFINITY };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("cached API keys", () => {
  it("keeps the cache under 1 s", () => {
    expect(API_KEY_CACHE_MS).toBeLessThanOrEqual(1000);
  });

  it("refuses a key revoked by another process within 1 s", async () => {
    const { key } = await h.server.createApiKey({ ...tenant, name: "revoked-elsewhere" });
    // Warm the cache with the key's row, as a busy caller would.
    for (let i = 0; i < 3; i++)
      expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(200);
    // Another web process revokes it: only Postgres changes, this process is not told.
    const revokedAt = performance.now();
    await h.db.prisma.apiKey.updateMany({
      where: { referenceId: tenant.organizationId, name: "revoked-elsewhere" },
      data: { enabled: false },
    });
    const { answer, afterMs } = await untilRefused(
      () => rest(h.server, { apiKey: key }, "GET", "/topics"),
      revokedAt,
    );
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe("UNAUTHENTICATED");
    expect(afterMs).toBeLessThan(1000);
    // And it stays refused.
    expect((await rest(h.server, { apiKey: key }, "GET", "/topics")).status).toBe(401);
  });
});

describe("topics on the produce path", () => {
  it("fails a produce to a topic deleted through the API, and one deleted by another process", async () => {
    const { key } = await h.server.createApiKey({ ...tenant, name: "producer" });
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

    const deletedAt = performance.now();
    await h.db.prisma.topic.deleteMany({ where: { organizationId: tenant.organizationId, name: "gone-db" } });
    const { answer, afterMs } = await untilRefused(() => produce("gone-db"), deletedAt);
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe("TOPIC_NOT_FOUND");
    expect(afterMs).toBeLessThan(1000);
  });

  it("counts exactly the acknowledged records and bytes in today's usage", async () => {
    const { key } = await h.server.createApiKey({ ...tenant, name: "counted" });
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
