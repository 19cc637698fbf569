import { beforeAll, describe, expect, it } from "vitest";
import { verifyAuditChain } from "../src/index";
import { rest, tamperAuditEvents, useHarness } from "./api-harness";

const h = useHarness("admin");
let admin: string;
let developer: string;
let organizationId: string;

beforeAll(async () => {
  const tenant = await h.server.provisionTenant({
    name: "Admin",
    email: "admin@example.com",
    password: "admin-pass-1",
  });
  organizationId = tenant.organizationId;
  admin = (await h.server.createApiKey({ ...tenant, name: "admin", scopes: ["admin"] })).key;
  developer = (await h.server.createApiKey({ ...tenant, name: "dev" })).key;
});

describe("presets and guardrails", () => {
  it("creates from presets, with explicit configs overriding them", async () => {
    const state = await rest(h.server, { apiKey: developer }, "POST", "/topics", {
      name: "state",
      preset: "state-table",
      configs: { "delete.retention.ms": 3_600_000 },
    });
    expect(state.status).toBe(201);
    expect((state.body.topic as { configs: object }).configs).toEqual({
      "cleanup.policy": "compact",
      "min.cleanable.dirty.ratio": "0.1",
      "delete.retention.ms": "3600000",
    });
    const gdpr = await rest(h.server, { apiKey: developer }, "POST", "/topics", {
      name: "people",
      preset: "gdpr-table",
    });
    const configs = (gdpr.body.topic as { configs: Record<string, string> }).configs;
    // Default erasure deadline 30 days: old values must be compactable well inside it.
    expect(Number(configs["max.compaction.lag.ms"])).toBeLessThanOrEqual(15 * 86_400_000);
    expect(Number(configs["delete.retention.ms"])).toBeLessThanOrEqual(86_400_000);
  });

  it("warns about retention below segment.ms and per-partition retention.bytes", async () => {
    const res = await rest(h.server, { apiKey: developer }, "POST", "/topics", {
      name: "short",
      partitions: 4,
      validateOnly: true,
      configs: { "retention.ms": 60_000, "retention.bytes": 1000 },
    });
    expect(res.status).toBe(200);
    expect((res.body.warnings as { code: string }[]).map((w) => w.code).sort()).toEqual([
      "RETENTION_BELOW_SEGMENT_MS",
      "RETENTION_BYTES_PER_PARTITION",
    ]);
    expect(JSON.stringify(res.body.warnings)).toContain("4000 bytes");
    expect(await h.db.prisma.topic.count({ where: { name: "short" } })).toBe(0);
  });
});

describe("altering configs", () => {
  it("records a before/after diff in the audit trail, warns on delete → compact, and resets to defaults", async () => {
    await rest(h.server, { apiKey: developer }, "POST", "/topics", {
      name: "events",
      configs: { "retention.ms": 86_400_000 },
    });
    const altered = await rest(h.server, { apiKey: developer }, "PATCH", "/topics/events/configs", {
      set: { "cleanup.policy": "compact" },
      reset: ["retention.ms"],
    });
    expect(altered.status).toBe(200);
    expect(altered.body.changes).toEqual([
      { name: "cleanup.policy", before: null, after: "compact" },
      { name: "retention.ms", before: "86400000", after: null },
    ]);
    expect((altered.body.warnings as { code: string }[]).map((w) => w.code)).toContain("DELETE_TO_COMPACT");
    const event = await h.db.prisma.auditEvent.findFirst({
      where: { organizationId, action: "topic.configs.altered" },
      orderBy: { seq: "desc" },
    });
    expect(event?.data).toMatchObject({ name: "events", changes: altered.body.changes });
    expect(await verifyAuditChain(h.db.prisma, organizationId)).toBeNull();

    const invalid = await rest(h.server, { apiKey: developer }, "PATCH", "/topics/events/configs", {
      set: { "min.compaction.lag.ms": 10, "max.compaction.lag.ms": 5 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.code).toBe("INVALID_CONFIG");
    const topic = await h.db.prisma.topic.findFirstOrThrow({ where: { organizationId, name: "events" } });
    expect(topic.configs).toEqual({ "cleanup.policy": "compact" });
  });

  it("refuses to drop compact from a compacted topic's cleanup.policy with POLICY_VIOLATION, changing nothing", async () => {
    await rest(h.server, { apiKey: developer }, "POST", "/topics", {
      name: "table",
      configs: { "cleanup.policy": "compact", "retention.ms": 86_400_000 },
    });
    for (const change of [{ set: { "cleanup.policy": "delete" } }, { reset: ["cleanup.policy"] }]) {
      const refused = await rest(h.server, { apiKey: developer }, "PATCH", "/topics/table/configs", change);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("POLICY_VIOLATION");
      expect(refused.body.detail).toContain(
        'Topic "table" is compacted; cleanup.policy=delete would stop compaction',
      );
    }
    const widened = await rest(h.server, { apiKey: developer }, "PATCH", "/topics/table/configs", {
      set: { "cleanup.policy": "compact,delete" },
    });
    expect(widened.status).toBe(200);
    const topic = await h.db.prisma.topic.findFirstOrThrow({ where: { organizationId, name: "table" } });
    expect(topic.configs).toEqual({ "cleanup.policy": "compact,delete", "retention.ms": "86400000" });
  });

  it("detects tampering with the audit chain", async () => {
    expect(await verifyAuditChain(h.db.prisma, organizationId)).toBeNull();
    // The table refuses UPDATE; a tamperer with DDL rights disables the trigger first.
    await expect(
      h.db.prisma.$executeRawUnsafe(
        `UPDATE "AuditEvent" SET "action" = 'x' WHERE "organizationId" = $1`,
        organizationId,
      ),
    ).rejects.toThrow(/append-only/);
    await tamperAuditEvents(
      h.db.prisma,
      `UPDATE "AuditEvent" SET "data" = '{"name":"forged"}' WHERE "organizationId" = $1 AND "seq" = 2`,
      organizationId,
    );
    expect(await verifyAuditChain(h.db.prisma, organizationId)).toBe(2);
  });
});

describe("adding partitions", () => {
  it("refuses compacted topics with 409 and an explanation; an admin may force it, audited", async () => {
    await rest(h.server, { apiKey: developer }, "POST", "/topics", { name: "table", preset: "state-table" });
    const refused = await rest(h.server, { apiKey: developer }, "POST", "/topics/table/partitions", {
      count: 4,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("PARTITIONS_FROZEN");
    expect(String(refused.body.detail)).toContain("replay");
    const notForced = await rest(h.server, { apiKey: developer }, "POST", "/topics/table/partitions", {
      count: 4,
      force: true,
    });
    expect(notForced.status).toBe(409);
    const forced = await rest(h.server, { apiKey: admin }, "POST", "/topics/table/partitions", {
      count: 4,
      force: true,
    });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ forced: true, topic: { partitions: 4 } });
    expect(await h.db.prisma.partition.count({ where: { topic: { organizationId, name: "table" } } })).toBe(
      4,
    );
    expect(
      await h.db.prisma.auditEvent.count({ where: { organizationId, action: "topic.partitions.forced" } }),
    ).toBe(1);
  });

  it("adds partitions to delete-policy topics", async () => {
    await rest(h.server, { apiKey: developer }, "POST", "/topics", { name: "log", partitions: 2 });
    const added = await rest(h.server, { apiKey: developer }, "POST", "/topics/log/partitions", { count: 3 });
    expect(added.status).toBe(200);
    const fewer = await rest(h.server, { apiKey: developer }, "POST", "/topics/log/partitions", { count: 2 });
    expect(fewer.status).toBe(400);
  });
});

describe("cleaner runs", () => {
  it("lists the passes workers recorded for the topic's partitions, newest first", async () => {
    const topic = await h.db.prisma.topic.findFirstOrThrow({ where: { organizationId, name: "table" } });
    const partition = await h.db.prisma.partition.findFirstOrThrow({
      where: { topicId: topic.id, index: 1 },
    });
    // Rows as a worker's CleanerRunRepository writes them (no worker runs in this file).
    await h.db.prisma.cleanerRun.create({
      data: {
        partitionId: partition.id,
        status: "completed",
        startedAt: new Date(1000),
        bytesRead: 10n,
        recordsRemoved: 3,
      },
    });
    await h.db.prisma.cleanerRun.create({
      data: { partitionId: partition.id, status: "failed", startedAt: new Date(2000), error: "disk full" },
    });
    const res = await rest(h.server, { apiKey: developer }, "GET", "/topics/table/cleaner-runs");
    expect(res.status).toBe(200);
    expect(
      (res.body.runs as { status: string; partition: number }[]).map((r) => [r.partition, r.status]),
    ).toEqual([
      [1, "failed"],
      [1, "completed"],
    ]);
  });
});
