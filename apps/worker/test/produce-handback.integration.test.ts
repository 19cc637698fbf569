import { join } from "node:path";
import { DataPlaneClient, DataPlaneError, type ProduceResult } from "@lastword/dataplane";
import { createPrisma } from "@lastword/db";
import { TcpProxy } from "@lastword/db/testing";
import { FsObjectStore, type ObjectStore } from "@lastword/object-store";
import { describe, expect, it } from "vitest";
import { COMMIT_PREFIX } from "../src/durability/bucket-layout";
import { useInProcessMachines } from "./machines";
import { openControlPlane } from "./rest-call";
import { createTestTopic, eventually } from "./test-topics";

// A produce whose partition is handed back (a rebalance when a worker joins) while its commit to
// object storage is still in flight: its batch is in the old owner's log and may yet be committed,
// so the answer says the write may have happened, and the data-plane client never resends it on
// its own (the web did, and wrote one record twice after a single 200). The old owner's commit is
// held at its object PUT; a second worker joins, and the first hands one of its two partitions back.
// The last test runs the same through the web's REST handler (createApiServer), end to end.
// The handback is a rebalance, not a lapse, so the lease TTL does not pace these tests; at 2 s a
// loaded machine (the workers share this file's event loop) let the partition that stays lapse
// too, and its produce was answered NOT_OWNER instead of committed.
const LEASE_TTL_MS = 6_000;
const machines = useInProcessMachines({
  name: "produce-handback",
  leaseTtlMs: LEASE_TTL_MS,
  // A window long enough that both partitions' produces, sent together, are in the one commit held
  // at its PUT even on a loaded machine (a produce appended after the flush began is not in flight,
  // and is rightly resent to the new owner); each test checks the held object holds both.
  objectTimings: { commitWindowMs: 500 },
});
const { harness } = machines;

/** The shared filesystem store whose commit-object PUTs wait while it is held. */
class GatedStore extends FsObjectStore {
  #gate: Promise<void> | null = null;
  #open = () => {};
  /** A commit PUT is waiting at the gate. */
  reached = false;
  /** The body of the commit object waiting at the gate. */
  held: Buffer | null = null;

  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  release(): void {
    this.#gate = null;
    this.#open();
  }

  override async put(...args: Parameters<ObjectStore["put"]>) {
    const gate = this.#gate;
    if (gate && args[0].startsWith(COMMIT_PREFIX)) {
      this.reached = true;
      this.held = Buffer.from(args[1] as Uint8Array);
      await gate;
    }
    return super.put(...args);
  }
}

/** Both partitions' records are in the commit held at its PUT: both produces are in flight. */
function expectHeldWith(store: GatedStore, values: string[]): void {
  for (const value of values) expect(store.held?.includes(value), `${value} in the held commit`).toBe(true);
}

type Outcome = { ok: ProduceResult } | { error: unknown };

function settle(p: Promise<ProduceResult>): { outcome: Outcome | null } {
  const s: { outcome: Outcome | null } = { outcome: null };
  p.then(
    (ok) => (s.outcome = { ok }),
    (error: unknown) => (s.outcome = { error }),
  );
  return s;
}

const record = (value: string) => ({ key: Buffer.from(value), value: Buffer.from(value) });

/**
 * Two partitions on a worker whose commits are held, one produce to each through `client`, then a
 * second worker joins: returns the partitions' produces and the one that was handed back.
 */
async function handBackDuringCommit(
  name: string,
  client: DataPlaneClient,
  options: { idempotent: boolean; beforeJoin?: () => void },
) {
  const store = new GatedStore(join(machines.root, "objects"));
  const { worker: first } = await machines.start(`${name}-a`, { objectStore: store });
  const topic = await createTestTopic(harness.db.prisma, { partitions: 2 });
  await eventually("the first worker hosts both partitions", 30_000, async () =>
    first.ownedPartitions().length === 2 ? true : undefined,
  );
  // The client knows both owners before anything is held: a database cut after the first commit
  // is held must not meet the other produce still looking its owner up.
  for (const partitionId of topic.partitionIds) await client.fetch({ partitionId, offset: 0 });
  store.hold();
  const produces = topic.partitionIds.map((partitionId, i) =>
    settle(
      client.produce({
        partitionId,
        records: [record(`${name}-${i}`)],
        ...(options.idempotent && { producer: { producerId: 77 + i, producerEpoch: 0, baseSequence: 0 } }),
      }),
    ),
  );
  await eventually("a commit is held at its PUT", 10_000, async () => (store.reached ? true : undefined));
  expectHeldWith(
    store,
    [0, 1].map((i) => `${name}-${i}`),
  );
  options.beforeJoin?.();
  const { worker: second } = await machines.start(`${name}-b`);
  const handed = await eventually("one partition handed back", 20_000, async () =>
    first.ownedPartitions().length === 1
      ? topic.partitionIds.findIndex((id) => !first.ownedPartitions().includes(id))
      : undefined,
  );
  return { store, first, second, topic, produces, handed };
}

describe("a produce whose partition is handed back while its commit is in flight", () => {
  it("is answered writeMayHaveHappened by the old owner, never resent to the new one; nothing is written twice", async () => {
    const { store, first, second, topic, produces, handed } = await handBackDuringCommit(
      "plain",
      harness.client,
      {
        idempotent: false,
      },
    );
    const moved = produces[handed]!;
    await eventually("the handed-back produce answered", 20_000, async () => moved.outcome ?? undefined);
    const error = (moved.outcome as { error?: unknown }).error;
    expect(error).toBeInstanceOf(DataPlaneError);
    expect(error).toMatchObject({ writeMayHaveHappened: true, retriable: true });
    // The other partition stayed: its produce is answered once its commit is in.
    store.release();
    const stayed = produces[1 - handed]!;
    await eventually("the other produce answered", 20_000, async () => stayed.outcome ?? undefined);
    expect(stayed.outcome).toMatchObject({ ok: { offsets: [0] } });

    // Each partition holds its record at most once (the handed-back one: once if the old owner's
    // commit got in before the lease moved, else not at all), wherever it lives now.
    for (const [i, partitionId] of topic.partitionIds.entries()) {
      const fetched = await harness.client.fetch({ partitionId, offset: 0 });
      const values = fetched.records.map((r) => r.value!.toString());
      if (i === handed) expect(values.length).toBeLessThanOrEqual(1);
      else expect(values).toEqual([`plain-${i}`]);
    }
    await second.stop();
    await first.stop();
    // The next test's workers are to host only its own topic.
    await harness.db.prisma.topic.delete({ where: { id: topic.topicId } });
  });

  it("an idempotent produce is resent, and when the database fails on the way the caller still hears that the write may have happened", async () => {
    const url = new URL(harness.db.url);
    const proxy = await TcpProxy.start(url.hostname, Number(url.port));
    const prisma = createPrisma(proxy.relayUrl(harness.db.url), { maxConnections: 2 });
    const client = new DataPlaneClient({ prisma, secret: harness.secret, ownerWaitMs: 8 * LEASE_TTL_MS });
    try {
      const { store, first, second, produces, handed } = await handBackDuringCommit("keyed", client, {
        idempotent: true,
        // The client found both owners already; its next lookup (for the new owner) fails.
        beforeJoin: () => proxy.cut(),
      });
      const moved = produces[handed]!;
      await eventually("the handed-back produce answered", 30_000, async () => moved.outcome ?? undefined);
      const error = (moved.outcome as { error?: unknown }).error;
      // Not the database's error: the write's, marked as one that may have happened.
      expect(error).toBeInstanceOf(DataPlaneError);
      expect(error).toMatchObject({ writeMayHaveHappened: true });
      store.release();
      await eventually(
        "the other produce answered",
        20_000,
        async () => produces[1 - handed]!.outcome ?? undefined,
      );
      await second.stop();
      await first.stop();
    } finally {
      client.close();
      await prisma.$disconnect();
      await proxy.close();
    }
  });

  it("through the REST API without an Idempotency-Key: 503 writeMayHaveHappened with Retry-After, though the web's database fails meanwhile; the web never resends it", async () => {
    // Workers left by the tests above must not be handed back instead of this test's partitions.
    await harness.db.prisma.topic.deleteMany({});
    const url = new URL(harness.db.url);
    const proxy = await TcpProxy.start(url.hostname, Number(url.port));
    const prisma = createPrisma(proxy.relayUrl(harness.db.url), { maxConnections: 4 });
    const dataPlane = new DataPlaneClient({ prisma, secret: harness.secret, ownerWaitMs: 8 * LEASE_TTL_MS });
    const control = openControlPlane({ name: "handback", prisma, dataPlane });
    const { server } = control;
    const rest = async (apiKey: string, method: string, path: string, body?: unknown) => {
      const answer = await control.rest(apiKey, method, path, body);
      return { ...answer, retryAfter: answer.headers.get("retry-after") };
    };

    try {
      const tenant = await server.provisionTenant({
        name: "Handback",
        email: "owner@handback.example",
        password: "handback-pass-1",
      });
      const { key } = await server.createApiKey({ ...tenant, name: "producer" });
      const store = new GatedStore(join(machines.root, "objects"));
      const { worker: first } = await machines.start("rest-a", { objectStore: store });
      const created = await rest(key, "POST", "/topics", { name: "orders", partitions: 2 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const partitionIds = (
        await harness.db.prisma.partition.findMany({
          where: { topic: { organizationId: tenant.organizationId, name: "orders" } },
          orderBy: { index: "asc" },
        })
      ).map((row) => row.id);
      await eventually("the first worker hosts both partitions", 30_000, async () =>
        first.ownedPartitions().length === 2 ? true : undefined,
      );
      const produce = (partition: number, value: string) =>
        rest(key, "POST", "/topics/orders/records", {
          records: [
            { key: { type: "string", data: value }, value: { type: "string", data: value }, partition },
          ],
        });
      // Warm-up: the key, the topic's routing and both owners are known to the web now.
      for (const partition of [0, 1])
        expect((await produce(partition, `warm-${partition}`)).status).toBe(200);

      store.hold();
      const answers = [0, 1].map((partition) => produce(partition, `held-${partition}`));
      await eventually("a commit is held at its PUT", 10_000, async () => (store.reached ? true : undefined));
      expectHeldWith(store, ["held-0", "held-1"]);
      // The web loses its database while the writes wait: nothing it does afterwards may turn the
      // write's answer into DATABASE_UNAVAILABLE.
      proxy.cut();
      const { worker: second } = await machines.start("rest-b");
      const handed = await eventually("one partition handed back", 20_000, async () =>
        first.ownedPartitions().length === 1
          ? partitionIds.findIndex((id) => !first.ownedPartitions().includes(id))
          : undefined,
      );
      const moved = await answers[handed]!;
      expect(moved.status, JSON.stringify(moved.body)).toBe(503);
      expect(moved.body).toMatchObject({ code: "PARTITION_UNAVAILABLE", writeMayHaveHappened: true });
      expect(moved.body.detail).toContain("send an Idempotency-Key");
      expect(Number(moved.retryAfter)).toBeGreaterThan(0);
      store.release();
      const stayed = await answers[1 - handed]!;
      expect(stayed.status, JSON.stringify(stayed.body)).toBe(200);
      expect(stayed.body.results).toEqual([{ partition: 1 - handed, offset: 1 }]);
      proxy.restore();

      // The log, wherever the partition lives now: the handed-back record at most once (once only
      // if the old owner's commit got in before the lease moved), never resent by the web.
      for (const [i, partitionId] of partitionIds.entries()) {
        const fetched = await harness.client.fetch({ partitionId, offset: 0 });
        const values = fetched.records.map((r) => r.value!.toString());
        if (i === handed) expect(values.filter((v) => v === `held-${i}`).length).toBeLessThanOrEqual(1);
        else expect(values).toEqual([`warm-${i}`, `held-${i}`]);
        expect(values[0]).toBe(`warm-${i}`);
      }
      await second.stop();
      await first.stop();
    } finally {
      proxy.restore();
      await control.close();
      dataPlane.close();
      await prisma.$disconnect();
      await proxy.close();
    }
  });
});
