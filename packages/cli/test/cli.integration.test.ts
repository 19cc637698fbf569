import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { useTestDatabase } from "@lastword/db/testing-hooks";
import { describe, expect, it } from "vitest";
import { main, readEnv } from "../src/index";

const db = useTestDatabase("lastword_test_cli");

async function lastword(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const env = { ...readEnv(), DATABASE_URL: db.url, REDIS_PREFIX: `lwtest-cli-${process.pid}` };
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("lastword CLI", () => {
  it("creates a tenant with an admin key, more keys, and lists topics and workers", async () => {
    const created = await lastword("tenant", "create", "Acme", "--email", "ops@acme.test");
    expect(created.code, created.stderr).toBe(0);
    const tenant = JSON.parse(created.stdout) as { tenantId: string; apiKey: string; password: string };
    expect(tenant.apiKey).toMatch(/^lw_/);
    expect(tenant.password.length).toBeGreaterThanOrEqual(12);
    const stored = await db.prisma.apiKey.findFirstOrThrow({ where: { referenceId: tenant.tenantId } });
    expect(stored.permissions).toBe(JSON.stringify({ admin: ["all"] }));

    const again = await lastword(
      "tenant",
      "create",
      "Acme",
      "--email",
      "ops@acme.test",
      "--password",
      "x-unused-pass",
    );
    expect(JSON.parse(again.stdout).tenantId).toBe(tenant.tenantId);

    const key = await lastword(
      "apikey",
      "create",
      "--tenant",
      tenant.tenantId,
      "--scopes",
      "records:read,topics:read",
    );
    expect(JSON.parse(key.stdout)).toMatchObject({ scopes: ["records:read", "topics:read"] });

    await db.prisma.topic.create({
      data: { organizationId: tenant.tenantId, name: "orders", partitionCount: 2 },
    });
    const topics = await lastword("topic", "list", "--tenant", tenant.tenantId);
    expect(JSON.parse(topics.stdout)).toEqual([expect.objectContaining({ name: "orders", partitions: 2 })]);

    await db.prisma.worker.create({ data: { id: "w-1", address: "http://127.0.0.1:1" } });
    const workers = await lastword("worker", "list");
    expect(JSON.parse(workers.stdout)).toEqual([
      expect.objectContaining({ id: "w-1", partitions: 0, stoppedAt: null, status: "alive" }),
    ]);
  });

  it("shows a worker that stopped heartbeating (SIGKILLed: stoppedAt stays null) as dead, with how long", async () => {
    // Heartbeats written on the database clock, as the workers write them: one 23 s old, one
    // fresh, one stopped cleanly.
    await db.prisma.$executeRaw`INSERT INTO "Worker" (id, address, "startedAt", "heartbeatAt")
      VALUES ('w-killed', 'http://127.0.0.1:2', now() - interval '60 seconds', now() - interval '23.4 seconds'),
             ('w-live', 'http://127.0.0.1:3', now(), now())`;
    await db.prisma.worker.create({
      data: { id: "w-stopped", address: "http://127.0.0.1:4", stoppedAt: new Date() },
    });
    const listed = JSON.parse((await lastword("worker", "list")).stdout) as { id: string; status: string }[];
    const status = Object.fromEntries(listed.map((w) => [w.id, w.status]));
    expect(status["w-killed"]).toBe("dead (no heartbeat for 23 s)");
    expect(status["w-live"]).toBe("alive");
    expect(status["w-stopped"]).toBe("stopped");
  });

  it("tenant show lists every limit the tenant is held to: the defaults, then its own Quota row", async () => {
    const created = await lastword("tenant", "create", "Quotas", "--email", "ops@quotas.test");
    const { tenantId } = JSON.parse(created.stdout) as { tenantId: string };
    const shown = JSON.parse((await lastword("tenant", "show", "--tenant", tenantId)).stdout);
    expect(shown).toMatchObject({
      tenantId,
      quotaSource: "defaults",
      quota: {
        maxConnectionsPerWorker: 1000,
        connectionsPerSecond: 100,
        maxBatchInflatedBytes: 16 << 20,
        maxRequestInflatedBytes: 64 << 20,
        maxBatchRecords: 100_000,
        requestTimeMsPerSecond: 250,
        fetchBytesPerSecond: 64 << 20,
        produceBytesPerSecond: 64 << 20,
      },
    });
    await db.prisma.quota.create({
      data: {
        organizationId: tenantId,
        maxPartitions: 10,
        maxStoredBytes: 1n << 30n,
        produceBytesPerSecond: 1 << 20,
        requestsPerSecond: 50,
        maxConnectionsPerWorker: 20,
      },
    });
    const own = JSON.parse((await lastword("tenant", "show", "--tenant", tenantId)).stdout);
    expect(own).toMatchObject({
      quotaSource: "tenant",
      quota: { maxConnectionsPerWorker: 20, connectionsPerSecond: 100, maxStoredBytes: 1 << 30 },
    });
    const missing = await lastword("tenant", "show", "--tenant", "nope");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no tenant nope");
  });

  it("explains bad usage on stderr with exit code 2", async () => {
    const bad = await lastword("apikey", "create", "--scopes", "everything");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--tenant is required");
    const unknown = await lastword("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("usage: lastword");
  });

  it("runs as a package bin (npx lastword)", async () => {
    const bin = new URL("../bin/lastword.mjs", import.meta.url).pathname;
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "--help"]);
    expect(stdout).toContain("tenant create <name> --email <email>");
  });
});
