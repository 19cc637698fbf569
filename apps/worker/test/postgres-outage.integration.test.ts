import { decodeStreamFrames } from "@lastword/dataplane";
import { TcpProxy } from "@lastword/db/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningWorker } from "../src/worker";
import { metricSample } from "./kafka-client";
import { createTestTopic, eventually } from "./test-topics";
import { useWorkerHarness } from "./worker-harness";

// The worker under test reaches Postgres through a relay the test cuts; the shared server keeps
// running for everyone else, and the test itself (and the client) talk to it directly.
const SECRET = "postgres-outage-secret";
const LEASE_TTL_MS = 1_000;
const harness = useWorkerHarness({ name: "pg-outage", secret: SECRET });
let proxy: TcpProxy;

function launch(databaseUrl: string): Promise<RunningWorker> {
  return harness.startWorker({ databaseUrl, leaseTtlMs: LEASE_TTL_MS, claimIntervalMs: 100 });
}

/** Produces one record straight to `worker` (no owner lookup, which needs Postgres). */
async function produceTo(worker: RunningWorker, partitionId: string, value: string) {
  const response = await fetch(`${worker.address}/v1/partitions/${partitionId}/produce`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-lastword-secret": SECRET },
    body: JSON.stringify({ records: [{ key: null, value: Buffer.from(value).toString("base64") }] }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { baseOffset?: number; count?: number; code?: string },
  };
}

async function fetchAll(worker: RunningWorker, partitionId: string): Promise<Map<number, string>> {
  const response = await fetch(
    `${worker.address}/v1/partitions/${partitionId}/records?offset=0&limit=10000&maxBytes=16777216`,
    { headers: { "x-lastword-secret": SECRET } },
  );
  expect(response.status).toBe(200);
  // The answer is stream frames (@lastword/frames).
  const stored = new Map<number, string>();
  const body = Buffer.from(await response.arrayBuffer());
  for await (const frame of decodeStreamFrames(
    (async function* () {
      yield body;
    })(),
  )) {
    if (frame.kind === "records") for (const r of frame.records) stored.set(r.offset, r.value!.toString());
  }
  return stored;
}

async function leaseOf(partitionId: string) {
  return harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
}

/** How long ago, by the database's clock (the one leases run on), the partition's lease ran out; <0: still valid. */
async function leaseExpiredForMs(partitionId: string): Promise<number> {
  const [row] = await harness.db.prisma.$queryRaw<{ ms: number }[]>`
    SELECT (EXTRACT(EPOCH FROM (now() AT TIME ZONE 'UTC') - "leaseExpiresAt") * 1000)::float8 AS ms
    FROM "Partition" WHERE "id" = ${partitionId}`;
  return row!.ms;
}

/** The worker's last heartbeat: it moves once per renewal, so two moves bound a whole ownership tick. */
async function heartbeatOf(workerId: string): Promise<number> {
  return (
    await harness.db.prisma.worker.findUniqueOrThrow({ where: { id: workerId } })
  ).heartbeatAt.getTime();
}

beforeAll(async () => {
  const upstream = new URL(harness.db.url);
  proxy = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
});

afterEach(async () => {
  proxy.restore();
  await harness.stopWorkers();
  await harness.db.prisma.topic.deleteMany();
});

afterAll(async () => {
  await proxy?.close();
});

describe("Postgres outage", () => {
  it("keeps producing and fetching owned partitions while the database is unreachable, losing nothing", async () => {
    const worker = await launch(proxy.relayUrl(harness.db.url));
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    const acked = new Map<number, string>();
    const first = await harness.client.produce({
      partitionId,
      records: [{ key: null, value: Buffer.from("before") }],
    });
    acked.set(first.offsets[0]!, "before");
    const { leaseEpoch } = await leaseOf(partitionId);

    proxy.cut();
    // Without the database until its lease in Postgres has been expired for two lifetimes (the
    // database's clock says so; it cannot be renewed meanwhile).
    for (let n = 0; n < 20 || (await leaseExpiredForMs(partitionId)) <= 2 * LEASE_TTL_MS; n++) {
      const value = `during-${n}`;
      const answer = await produceTo(worker, partitionId, value);
      expect(answer).toMatchObject({ status: 200 });
      expect(answer.body.count).toBe(1);
      acked.set(answer.body.baseOffset!, value);
      if (n % 10 === 0) {
        const stored = await fetchAll(worker, partitionId);
        for (const [offset, v] of acked) expect(stored.get(offset)).toBe(v);
      }
    }
    expect(acked.size).toBeGreaterThan(20);
    expect(await leaseExpiredForMs(partitionId)).toBeGreaterThan(0);
    expect(worker.ownedPartitions()).toEqual([partitionId]);

    proxy.restore();
    // Renewal resumes: same owner, same epoch (nobody claimed it meanwhile), lease valid again.
    await eventually("lease renewed", 5_000, async () => {
      const lease = await leaseOf(partitionId);
      return lease.leaseExpiresAt!.getTime() > Date.now() ? lease : undefined;
    }).then((lease) => expect(lease).toMatchObject({ ownerWorkerId: worker.id, leaseEpoch }));
    // The renewals missed meanwhile are counted (and logged) once one succeeds again.
    await eventually("the late renewal counted", 5_000, async () => {
      const metrics = await (await fetch(`${worker.address}/metrics`)).text();
      return metricSample(metrics, "lastword_lease_renewals_late_total") >= 1 ? true : undefined;
    });
    const after = await harness.client.produce({
      partitionId,
      records: [{ key: null, value: Buffer.from("after") }],
    });
    acked.set(after.offsets[0]!, "after");
    const stored = await harness.client.fetch({ partitionId, offset: 0, limit: 10_000, maxBytes: 16 << 20 });
    expect(stored.records.length).toBe(acked.size);
    for (const record of stored.records) expect(record.value!.toString()).toBe(acked.get(record.offset));
  });

  it("fences a cut-off worker through the storage once another worker claims its partition", async () => {
    const a = await launch(proxy.relayUrl(harness.db.url));
    const topic = await createTestTopic(harness.db.prisma, { partitions: 1 });
    const partitionId = topic.partitionIds[0]!;
    await eventually("a owns the partition", 2_000, async () =>
      a.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    const before = await harness.client.produce({
      partitionId,
      records: [{ key: null, value: Buffer.from("a-before") }],
    });
    expect(before.offsets).toEqual([0]);

    proxy.cut();
    expect((await produceTo(a, partitionId, "a-cut")).status).toBe(200);
    // B reaches Postgres directly: once a's lease has expired, B claims it (epoch + 1) and fences the files.
    const b = await launch(harness.db.url);
    await eventually("b owns the partition", 3 * LEASE_TTL_MS, async () =>
      b.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    // Claimed in Postgres is not yet fenced on disk: b writes its epoch into the directory before its
    // log opens, so a partition b serves reads from is one whose files refuse a.
    await eventually("b serves the partition", 10_000, async () => {
      const response = await fetch(`${b.address}/v1/partitions/${partitionId}/offsets`, {
        headers: { "x-lastword-secret": SECRET },
      });
      await response.arrayBuffer();
      return response.status === 200 ? true : undefined;
    });
    // a still believes it owns the partition (it cannot hear from Postgres) but the storage refuses it.
    expect(a.ownedPartitions()).toEqual([partitionId]);
    const stale = await produceTo(a, partitionId, "a-stale");
    expect(stale).toMatchObject({ status: 409, body: { code: "NOT_OWNER" } });
    await eventually("a closed the partition", 1_000, async () =>
      a.ownedPartitions().length === 0 ? true : undefined,
    );
    // The client still has a cached as the owner: it is told NOT_OWNER and goes to b.
    const written = await harness.client.produce({
      partitionId,
      records: [{ key: null, value: Buffer.from("b") }],
    });

    const cutOff = await heartbeatOf(a.id);
    proxy.restore();
    // Back in touch, a renews nothing of it and does not claim it back: checked once a has beaten
    // twice, so one whole ownership tick (renew, then claim) ran with Postgres reachable.
    const first = await eventually("a's heartbeat after the outage", 10_000, async () => {
      const at = await heartbeatOf(a.id);
      return at > cutOff ? at : undefined;
    });
    await eventually("a's next heartbeat", 10_000, async () =>
      (await heartbeatOf(a.id)) > first ? true : undefined,
    );
    expect(a.ownedPartitions()).toEqual([]);
    const stored = await harness.client.fetch({ partitionId, offset: 0, limit: 100 });
    expect(stored.records.map((r) => r.value!.toString())).toEqual(["a-before", "a-cut", "b"]);
    expect(stored.records[2]!.offset).toBe(written.offsets[0]);
    expect(await leaseOf(partitionId)).toMatchObject({ ownerWorkerId: b.id, leaseEpoch: 2 });
  });
});
