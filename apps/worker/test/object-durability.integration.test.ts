import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { FsObjectStore, type ObjectStore, ObjectStoreError } from "@lastword/object-store";
import { CompressionTypes, Kafka, logLevel } from "kafkajs";
import { describe, expect, it } from "vitest";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic } from "./kafka-client";
import { useInProcessMachines } from "./machines";
import { createTestPartition, createTestTopic, eventually } from "./test-topics";

// In-process workers, each with a data directory of its own (separate "machines") and one shared
// filesystem object store: what is acknowledged must be in the store under a committed manifest row.
const LEASE_TTL_MS = 1_500;
const machines = useInProcessMachines({
  name: "object-durability",
  leaseTtlMs: LEASE_TTL_MS,
  objectTimings: { commitWindowMs: 10 },
});
const { harness } = machines;
const startMachine = machines.start;

/** The filesystem store whose PUTs fail as an unavailable S3 answers (503) while `failing` is set. */
class UnavailableStore extends FsObjectStore {
  failing = true;
  attempts = 0;
  override put(...args: Parameters<ObjectStore["put"]>) {
    this.attempts++;
    if (this.failing) return Promise.reject(new ObjectStoreError("UNAVAILABLE", "503 Slow Down"));
    return super.put(...args);
  }
}

const { manifestRows, fetchAll } = machines;

const record = (key: string, value: string) => ({ key: Buffer.from(key), value: Buffer.from(value) });

describe("object storage as the durable home", () => {
  it("acknowledges a produce once its bytes are in an object under a committed manifest row, one object per window", async () => {
    const { worker } = await startMachine("ack", { objectTimings: { commitWindowMs: 100 } });
    const topic = await createTestTopic(harness.db.prisma, { partitions: 4 });
    await eventually("all four partitions open", 5_000, async () =>
      worker.ownedPartitions().length === 4 ? true : undefined,
    );
    const answers = await Promise.all(
      topic.partitionIds.flatMap((partitionId) =>
        Array.from({ length: 5 }, (_, n) =>
          harness.client.produce({
            partitionId,
            records: [record(`k${n}`, `v${n}`), record(`j${n}`, `w${n}`)],
          }),
        ),
      ),
    );
    expect(answers).toHaveLength(20);
    const store = new FsObjectStore(join(machines.root, "objects"));
    const keys = new Set<string>();
    for (const partitionId of topic.partitionIds) {
      const rows = await manifestRows(partitionId);
      // Contiguous from 0 to the partition's durable end: every acknowledged offset is covered.
      let next = 0n;
      for (const row of rows) {
        expect(row.baseOffset).toBe(next);
        expect(row.kind).toBe("commit");
        next = row.lastOffset + 1n;
        keys.add(row.objectKey);
        const bytes = await store.get(row.objectKey, { offset: Number(row.position), length: row.byteSize });
        expect(createHash("sha256").update(bytes).digest("hex")).toBe(row.sha256);
      }
      expect(next).toBe(10n);
      const partition = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
      expect(partition.durableEndOffset).toBe(10n);
      expect(rows.every((row) => row.epoch === partition.leaseEpoch)).toBe(true);
    }
    // Twenty concurrent produces on four partitions share the window's objects.
    expect(keys.size).toBeLessThan(20);
    for (const key of keys) expect(key).toMatch(new RegExp(`^commit/${worker.id}/`));
    await store.close();
    await worker.stop();
  });

  it("rebuilds a partition from the manifest on a worker with an empty disk", async () => {
    const a = await startMachine("loss-a");
    const { partitionId } = await createTestPartition(harness.db.prisma, { "cleanup.policy": "compact" });
    await eventually("a owns the partition", 5_000, async () =>
      a.worker.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    const acked = new Map<number, string>();
    for (let n = 0; n < 30; n++) {
      const answer = await harness.client.produce({
        partitionId,
        records: [record(`key-${n % 7}`, `value-${n}`)],
      });
      acked.set(answer.offsets[0]!, `value-${n}`);
    }
    await a.worker.kill();
    await rm(a.dataDir, { recursive: true, force: true });

    const b = await startMachine("loss-b");
    await eventually("b took the partition over", 8 * LEASE_TTL_MS, async () =>
      b.worker.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    const served = await fetchAll(partitionId);
    expect(served).toEqual(acked);
    // And it goes on from there: the next produce lands after the rebuilt records.
    const next = await harness.client.produce({ partitionId, records: [record("key-0", "after")] });
    expect(next.offsets[0]).toBe(30);
    await b.worker.stop();
  });

  it("never acknowledges nor keeps an append whose owner lost its lease before the commit", async () => {
    // A long window: the lease is taken away between the local append and the commit.
    const a = await startMachine("fenced", { objectTimings: { commitWindowMs: 1_500 } });
    const { partitionId } = await createTestPartition(harness.db.prisma, {});
    await eventually("a owns the partition", 5_000, async () =>
      a.worker.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    const { leaseEpoch } = await harness.db.prisma.partition.findUniqueOrThrow({
      where: { id: partitionId },
    });
    const produced = harness.client.produce({ partitionId, records: [record("zombie", "write")] });
    // The record is in a's local log before the window closes, and not served: not yet durable.
    await eventually("appended locally", 1_000, async () => {
      const { segments } = await harness.client.segments({ partitionId });
      return segments.some((segment) => segment.records === 1) ? true : undefined;
    });
    const before = await harness.client.fetch({ partitionId, offset: 0, limit: 10 });
    expect([before.records, before.logEndOffset]).toEqual([[], 0]);
    // What a takeover does: the lease gone from a, the next epoch.
    await harness.db.prisma.partition.update({
      where: { id: partitionId },
      data: { ownerWorkerId: null, leaseExpiresAt: null, leaseEpoch: { increment: 1 } },
    });
    // a's commit is fenced (NOT_OWNER); the client retries once on the next owner (a again, which
    // claims it anew and rebuilds it from the manifest, where the fenced append never was).
    const answer = await produced;
    expect(answer.offsets).toEqual([0]);
    const rows = await manifestRows(partitionId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.epoch).toBeGreaterThan(leaseEpoch + 1);
    // One copy: the fenced append is neither acknowledged nor served.
    expect([...(await fetchAll(partitionId)).entries()]).toEqual([[0, "write"]]);
    await a.worker.stop();
  });

  it("acknowledges a lastword.durability=local topic on the local fsync and uploads it with the next window", async () => {
    const { worker } = await startMachine("relaxed", { objectTimings: { commitWindowMs: 3_000 } });
    const { partitionId } = await createTestPartition(harness.db.prisma, { "lastword.durability": "local" });
    await eventually("the partition open", 5_000, async () =>
      worker.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    const answer = await harness.client.produce({ partitionId, records: [record("k", "relaxed")] });
    expect(answer.offsets).toEqual([0]);
    // Answered before the window closed: nothing committed yet.
    expect(await manifestRows(partitionId)).toEqual([]);
    const rows = await eventually("uploaded by the window", 10_000, async () => {
      const found = await manifestRows(partitionId);
      return found.length > 0 ? found : undefined;
    });
    expect(rows.map((row) => [row.baseOffset, row.lastOffset])).toEqual([[0n, 0n]]);
    await worker.stop();
  });

  it("makes Kafka produces durable the same way, compressed batches as stored, and serves them after a rebuild", async () => {
    const organizationId = `org_${Math.random().toString(36).slice(2, 8)}`;
    const [partitionId] = await createNamedTopic(harness.db.prisma, organizationId, "durable-kafka", 1);
    const key = await createKafkaKey(harness.db.prisma, organizationId, CLIENT_SCOPES);
    const a = await startMachine("kafka-a", { kafka: { host: "127.0.0.1", port: 0 } });
    await eventually("a owns the partition", 5_000, async () =>
      a.worker.ownedPartitions().includes(partitionId!) ? true : undefined,
    );
    const kafka = new Kafka({
      brokers: [`${a.worker.kafka!.host}:${a.worker.kafka!.port}`],
      clientId: "object-durability-test",
      sasl: { mechanism: "plain", username: key.id, password: key.secret },
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer();
    await producer.connect();
    const sent: string[] = [];
    for (let n = 0; n < 10; n++) {
      const messages = Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: `gzip-${n}-${i}` }));
      await producer.send({ topic: "durable-kafka", acks: -1, compression: CompressionTypes.GZIP, messages });
      sent.push(...messages.map((m) => m.value));
      // Acknowledged means committed: the manifest already covers this send.
      const rows = await manifestRows(partitionId!);
      expect(rows.at(-1)?.lastOffset).toBe(BigInt(sent.length - 1));
    }
    await producer.disconnect();
    await a.worker.kill();
    await rm(a.dataDir, { recursive: true, force: true });

    const b = await startMachine("kafka-b");
    await eventually("b took the partition over", 8 * LEASE_TTL_MS, async () =>
      b.worker.ownedPartitions().includes(partitionId!) ? true : undefined,
    );
    expect([...(await fetchAll(partitionId!)).values()]).toEqual(sent);
    await b.worker.stop();
  });

  it("holds the answer while the store refuses PUTs, retrying, and answers once the object is in", async () => {
    const store = new UnavailableStore(join(machines.root, "objects"));
    const { worker } = await startMachine("unavailable", { objectStore: store });
    const { partitionId } = await createTestPartition(harness.db.prisma, {});
    await eventually("the partition open", 5_000, async () =>
      worker.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    let answered = false;
    const produced = harness.client.produce({ partitionId, records: [record("k", "held")] }).finally(() => {
      answered = true;
    });
    await eventually("the window retried", 5_000, async () => (store.attempts >= 3 ? true : undefined));
    expect(answered).toBe(false);
    expect(await manifestRows(partitionId)).toEqual([]);
    store.failing = false;
    expect((await produced).offsets).toEqual([0]);
    expect((await manifestRows(partitionId)).map((row) => row.lastOffset)).toEqual([0n]);
    await worker.stop();
  });

  it("answers key lookups, key versions and snapshots from below the durable end while a commit is held", async () => {
    const store = new UnavailableStore(join(machines.root, "objects"));
    store.failing = false;
    const { worker } = await startMachine("keys-held", { objectStore: store });
    const { partitionId } = await createTestPartition(harness.db.prisma, {});
    await eventually("the partition open", 5_000, async () =>
      worker.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    await harness.client.produce({ partitionId, records: [record("k", "acked"), record("gone", "acked")] });
    await harness.client.produce({ partitionId, records: [{ key: Buffer.from("gone"), value: null }] });
    store.failing = true;
    let answered = false;
    const produced = harness.client
      .produce({
        partitionId,
        records: [record("k", "pending"), record("new", "pending"), record("gone", "back")],
      })
      .finally(() => {
        answered = true;
      });
    await eventually("appended locally, the window retrying", 5_000, async () => {
      const { segments } = await harness.client.segments({ partitionId });
      const local = segments.reduce((sum, segment) => sum + segment.records, 0);
      return local === 6 && store.attempts >= 2 ? true : undefined;
    });
    const lookup = (key: string) => harness.client.lookupKey({ partitionId, key: Buffer.from(key) });
    const valueIn = (answer: Awaited<ReturnType<typeof lookup>>) =>
      answer.record && Buffer.from(answer.record.value, "base64").toString();
    const snapshot = async () => {
      const latest = new Map<string, string>();
      for await (const frame of harness.client.streamPartition({ partitionId, mode: "snapshot" }))
        if (frame.kind === "records")
          for (const r of frame.records) latest.set(r.key!.toString(), r.value?.toString() ?? "");
      return latest;
    };

    // Not acknowledged, so not served: each key answers what it did before that produce.
    const held = await lookup("k");
    expect([valueIn(held), held.record?.offset, held.logEndOffset]).toEqual(["acked", 0, 3]);
    expect(await lookup("new")).toEqual({ record: null, logEndOffset: 3 });
    expect(await lookup("gone")).toEqual({ record: null, logEndOffset: 3, tombstoneOffset: 2 });
    const versions = await harness.client.keyVersions({ partitionId, key: Buffer.from("k") });
    expect(versions.versions.map((v) => v.offset)).toEqual([0]);
    expect(versions.logEndOffset).toBe(3);
    // A snapshot waits for the held commit rather than serve it early.
    let snapshotDone = false;
    const snapshotted = snapshot().finally(() => {
      snapshotDone = true;
    });
    await eventually("the window retried again", 5_000, async () => (store.attempts >= 4 ? true : undefined));
    expect([answered, snapshotDone]).toEqual([false, false]);

    store.failing = false;
    expect((await produced).offsets).toEqual([3, 4, 5]);
    expect(await snapshotted).toEqual(
      new Map([
        ["k", "pending"],
        ["new", "pending"],
        ["gone", "back"],
      ]),
    );
    const acked = await lookup("k");
    expect([valueIn(acked), acked.record?.offset, acked.logEndOffset]).toEqual(["pending", 3, 6]);
    expect(valueIn(await lookup("new"))).toBe("pending");
    expect(valueIn(await lookup("gone"))).toBe("back");
    const after = await harness.client.keyVersions({ partitionId, key: Buffer.from("k") });
    expect(after.versions.map((v) => v.offset)).toEqual([0, 3]);
    await worker.stop();
  });

  it("switches a partition from local to object durability by reopening it at the same epoch, keeping its log", async () => {
    const { worker } = await startMachine("switch", { objectTimings: { commitWindowMs: 3_000 } });
    const { partitionId, topicId } = await createTestPartition(harness.db.prisma, {
      "lastword.durability": "local",
    });
    await eventually("the partition open", 5_000, async () =>
      worker.ownedPartitions().includes(partitionId) ? true : undefined,
    );
    const values: string[] = [];
    for (let n = 0; n < 3; n++) {
      await harness.client.produce({ partitionId, records: [record("k", `local-${n}`)] });
      values.push(`local-${n}`);
    }
    const { leaseEpoch } = await harness.db.prisma.partition.findUniqueOrThrow({
      where: { id: partitionId },
    });
    await harness.db.prisma.topic.update({
      where: { id: topicId },
      data: { configs: { "lastword.durability": "object" } },
    });
    // Once the renewal reopened it under the new config, an answer means the manifest covers it.
    await eventually("a produce answered only once committed", 10_000, async () => {
      const value = `object-${values.length}`;
      const { offsets } = await harness.client.produce({ partitionId, records: [record("k", value)] });
      values.push(value);
      const rows = await manifestRows(partitionId);
      return rows.at(-1) && rows.at(-1)!.lastOffset >= BigInt(offsets[0]!) ? true : undefined;
    });
    const partition = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
    expect(partition.leaseEpoch).toBe(leaseEpoch);
    expect([...(await fetchAll(partitionId)).values()]).toEqual(values);
    await worker.stop();
  });
});
