import { partitionForKey } from "@lastword/api/partitioner";
import { Kafka, logLevel, Partitioners } from "kafkajs";
import { describe, expect, it } from "vitest";
import { createNamedTopic, kcatReadAll, spawnKafkaWorker } from "./kafka-client";
import { FAILOVER_LEASE_TTL_MS, useFailoverWorld } from "./kafka-world";
import { eventually, partitionOwners } from "./test-topics";

// Failover with a real client: a partition's leader dies (SIGKILL) under an unmodified kafkajs producer with
// acks=-1. Nothing it acknowledged may be lost, and it must find the new leader by itself (Metadata
// names the lease owner) once the lease expired and the other worker claimed the partition.
const ORG = "org_kafka_failover";
const TOPIC = "orders";
const PARTITIONS = 4;
const { harness, key } = useFailoverWorld("kafka-failover", ORG, {
  scopes: ["topics:read", "records:read", "records:write"],
});

const spawnWorker = (id: string) => spawnKafkaWorker(harness, id, FAILOVER_LEASE_TTL_MS);

/** One key per partition for send number n, so every send touches every partition (murmur2). */
function keysFor(n: number): string[] {
  const keys: string[] = [];
  for (let p = 0; p < PARTITIONS; p++) {
    for (let j = 0; j < 1_000; j++) {
      const candidate = `order-${n}-${j}`;
      if (partitionForKey(Buffer.from(candidate), PARTITIONS) === p) {
        keys.push(candidate);
        break;
      }
    }
  }
  if (keys.length !== PARTITIONS) throw new Error(`no key for every partition at send ${n}`);
  return keys;
}

const owners = (partitionIds: string[]) => partitionOwners(harness.db.prisma, partitionIds);

describe("failover under a kafkajs producer", () => {
  it("SIGKILL of a partition's leader: every acknowledged record survives and the producer resumes on the new leader", async () => {
    const [w1, w2] = await Promise.all([spawnWorker("kf-w1"), spawnWorker("kf-w2")]);
    const partitionIds = await createNamedTopic(harness.db.prisma, ORG, TOPIC, PARTITIONS);
    await eventually("both workers lead partitions", 10_000, async () => {
      const now = await owners(partitionIds);
      return now.includes("kf-w1") && now.includes("kf-w2") ? now : undefined;
    });

    const kafka = new Kafka({
      brokers: [w1!.kafka, w2!.kafka].map((k) => `${k.host}:${k.port}`),
      clientId: "kafka-failover-test",
      sasl: { mechanism: "scram-sha-256", username: key.id, password: key.secret },
      connectionTimeout: 1_000,
      logLevel: logLevel.NOTHING,
      // Retries outlast a lease lifetime and the claim that follows it.
      retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1_000 },
    });
    const producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: false,
      retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1_000 },
    });
    await producer.connect();

    // partition → offset → value, only what the producer was told is written.
    const acked = new Map<number, Map<string, string>>(
      Array.from({ length: PARTITIONS }, (_, p) => [p, new Map()]),
    );
    const completions: { startedAt: number; doneAt: number }[] = [];
    let producing = true;
    let failures = 0;
    const loop = (async () => {
      for (let n = 0; producing && n < 20_000; n++) {
        const keys = keysFor(n);
        const startedAt = Date.now();
        try {
          const results = await producer.send({
            topic: TOPIC,
            acks: -1,
            messages: keys.map((k) => ({ key: k, value: `value-${k}` })),
          });
          for (const r of results) {
            const k = keys.find(
              (candidate) => partitionForKey(Buffer.from(candidate), PARTITIONS) === r.partition,
            )!;
            acked.get(r.partition)!.set(r.baseOffset!, `value-${k}`);
          }
          completions.push({ startedAt, doneAt: Date.now() });
        } catch {
          // Retries exhausted: none of this send counts as acknowledged (some of it may be stored).
          failures++;
        }
      }
    })();

    await eventually("records acknowledged on every partition", 20_000, async () =>
      [...acked.values()].every((m) => m.size >= 20) ? true : undefined,
    );
    const before = await owners(partitionIds);
    const victimPartitions = before.flatMap((owner, p) => (owner === "kf-w1" ? [p] : []));
    expect(victimPartitions.length).toBeGreaterThan(0);
    const killedAt = Date.now();
    w1!.child.kill("SIGKILL");

    // The producer's own progress is the signal: a send started after the kill that completed had
    // to reach the new leader of every one of w1's partitions.
    const resumed = await eventually(
      "a send after the kill acknowledged",
      20 * FAILOVER_LEASE_TTL_MS,
      async () => completions.find((c) => c.startedAt >= killedAt),
    );
    const resumeMs = resumed.doneAt - killedAt;
    console.log(
      `kafkajs producer resumed ${resumeMs} ms after SIGKILL of the leader (lease TTL ${FAILOVER_LEASE_TTL_MS} ms)`,
    );
    expect((await owners(partitionIds)).every((o) => o === "kf-w2")).toBe(true);
    const atResume = completions.length;
    await eventually("more sends acknowledged after resuming", 20_000, async () =>
      completions.length >= atResume + 20 ? true : undefined,
    );
    producing = false;
    await loop;
    await producer.disconnect();
    expect(failures).toBe(0);

    // Every acknowledged record, through Kafka Fetch (librdkafka's consumer, no group) …
    const overKafka = new Map<string, string>();
    for (const [p, o, v] of await kcatReadAll(`${w2!.kafka.host}:${w2!.kafka.port}`, key, TOPIC)) {
      overKafka.set(`${p}|${o}`, v);
    }
    // … and through the data plane that REST reads with.
    for (const [p, records] of acked) {
      expect(records.size).toBeGreaterThan(20);
      const stored = new Map<string, string>();
      for (let offset = 0; ; ) {
        const page = await harness.client.fetch({
          partitionId: partitionIds[p]!,
          offset,
          limit: 10_000,
          maxBytes: 32 << 20,
        });
        for (const r of page.records) stored.set(String(r.offset), r.value!.toString());
        if (page.records.length === 0 || page.nextOffset >= page.logEndOffset) break;
        offset = page.nextOffset;
      }
      for (const [offset, value] of records) {
        expect(overKafka.get(`${p}|${offset}`), `partition ${p} offset ${offset} over Kafka`).toBe(value);
        expect(stored.get(offset), `partition ${p} offset ${offset} over the data plane`).toBe(value);
      }
    }
    expect(resumeMs).toBeLessThan(20 * FAILOVER_LEASE_TTL_MS);
  });
});
