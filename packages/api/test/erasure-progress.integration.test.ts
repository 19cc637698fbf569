import { DataPlaneClient } from "@lastword/dataplane";
import { eventually } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionForKey } from "../src/index";
import { type Harness, rest } from "./api-harness";
import { CLOSED_REQUEST_TIMELINE, type ErasureFixture, startErasureFixture } from "./erasure-fixture";

// Configs in seconds: a 300 ms tick, tombstones kept 3 s, a 15 s deadline. Kafka's default
// segment.ms and max.compaction.lag.ms: only the erasure guard makes these idle partitions clean.
const TICK_MS = 300;
const DEADLINE_MS = 15_000;
const KEY = "user-7";

let fixture: ErasureFixture;
let h: Harness;
let admin: string;
let compliance: string;
let dataPlane: DataPlaneClient;

/** A partition other than the one the key hashes to, where a producer put the key itself. */
function strayPartition(): number {
  return (partitionForKey(Buffer.from(KEY), 3) + 1) % 3;
}

async function produceTo(partition: number, value: string | null) {
  const res = await rest(h.server, { apiKey: admin }, "POST", "/topics/accounts/records", {
    records: [
      {
        key: { type: "string", data: KEY },
        value: value === null ? null : { type: "string", data: value },
        partition,
      },
    ],
  });
  expect(res.status).toBe(200);
}

async function partitionId(index: number): Promise<string> {
  const row = await h.db.prisma.partition.findFirstOrThrow({ where: { topic: { name: "accounts" }, index } });
  return row.id;
}

/** Reads the request's row straight from Postgres until `done` holds: no API call, no reader. */
function waitForRow(id: string, done: (status: string) => boolean, timeoutMs: number) {
  return eventually(`erasure request ${id} to move on`, timeoutMs, async () => {
    const row = await h.db.prisma.erasureRequest.findUniqueOrThrow({ where: { id } });
    return done(row.status) ? row : undefined;
  });
}

beforeAll(async () => {
  fixture = await startErasureFixture("erasure_progress", TICK_MS);
  ({ h, admin, compliance } = fixture);
  dataPlane = new DataPlaneClient({ prisma: h.db.prisma, secret: h.secret, ownerWaitMs: 15_000 });
  const created = await rest(h.server, { apiKey: admin }, "POST", "/topics", {
    name: "accounts",
    partitions: 3,
    configs: { "cleanup.policy": "compact", "delete.retention.ms": 3_000 },
  });
  expect(created.status).toBe(201);
}, 60_000);

afterAll(async () => {
  dataPlane?.close();
  await fixture?.close();
});

describe("erasure progress without readers", () => {
  it("plans a partition whose latest record of the key is already a tombstone, and the murmur2 one", async () => {
    const stray = strayPartition();
    // The key was written to the stray partition by hand and deleted there: the latest record is a
    // tombstone, but the value beneath it stays until a pass (and no pass is due by the configs).
    await produceTo(stray, "Eve, 1 Secret Lane");
    await produceTo(stray, null);
    const before = await rest(
      h.server,
      { apiKey: admin },
      "GET",
      `/topics/accounts/partitions/${stray}/records?offset=0&limit=100`,
    );
    const values = (before.body.records as { value: { data: string } | null }[]).map((r) => r.value);
    expect(values).toHaveLength(2);
    expect(values[0]?.data).toBe("Eve, 1 Secret Lane");
    expect(values[1]).toBeNull();
    // The owner's key index remembers the tombstoned key (no live value, but a tombstone at 1).
    const strayId = await partitionId(stray);
    expect(await dataPlane.lookupKey({ partitionId: strayId, key: Buffer.from(KEY) })).toMatchObject({
      record: null,
      tombstoneOffset: 1,
    });

    const res = await rest(h.server, { apiKey: compliance }, "POST", "/erasure-requests", {
      keys: [{ type: "string", data: KEY }],
      topics: ["accounts"],
      deadlineAt: new Date(Date.now() + DEADLINE_MS).toISOString(),
    });
    expect(res.status).toBe(201);
    const id = String(res.body.id);
    const rows = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    expect(rows.map((r) => r.partitionIndex).sort()).toEqual(
      [partitionForKey(Buffer.from(KEY), 3), stray].sort(),
    );

    // Nobody reads the request from here on: the worker's tick alone moves the row.
    const purged = await waitForRow(id, (s) => s !== "tombstoned" && s !== "received", DEADLINE_MS + 5_000);
    expect(purged.status).toBe("purged");
    const verified = await h.db.prisma.erasureTombstone.findMany({ where: { requestId: id } });
    for (const t of verified) {
      expect(t.purgedAt?.getTime()).toBeLessThan(purged.deadlineAt.getTime());
      expect((t.purgeEvidence as { result: string }).result).toBe("absent");
    }
    const strayRow = verified.find((t) => t.partitionIndex === stray);
    expect((strayRow?.purgeEvidence as { bytesScanned?: number } | undefined)?.bytesScanned).toBeGreaterThan(
      0,
    );

    const closed = await waitForRow(id, (s) => s === "closed" || s === "failed", 20_000);
    expect(closed.status).toBe("closed");
    expect(closed.closedAt).not.toBeNull();
    const actions = await h.db.prisma.auditEvent.findMany({
      where: { targetType: "erasureRequest", targetId: id },
      orderBy: { seq: "asc" },
      select: { action: true, actorType: true },
    });
    expect(actions.map((e) => e.action)).toEqual(CLOSED_REQUEST_TIMELINE);
    expect(actions.slice(1).every((e) => e.actorType === "system")).toBe(true);

    // The value beneath the old tombstone is physically gone from the stray partition.
    const after = await rest(
      h.server,
      { apiKey: admin },
      "GET",
      `/topics/accounts/partitions/${stray}/records?offset=0&limit=100`,
    );
    expect((after.body.records as unknown[]).length).toBe(0);
    // The pass that removed the tombstone rebuilt the index: the key is forgotten there too.
    const forgotten = await dataPlane.lookupKey({ partitionId: strayId, key: Buffer.from(KEY) });
    expect(forgotten.record).toBeNull();
    expect(forgotten.tombstoneOffset).toBeUndefined();
  }, 60_000);
});
