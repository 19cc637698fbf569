import { describe, expect, it } from "vitest";
import { kafkaFleet, kcatReadAll, producePerPartition } from "./kafka-client";
import { FAILOVER_LEASE_TTL_MS, useFailoverWorld } from "./kafka-world";
import { busiestWorker, eventually, partitionOwners } from "./test-topics";

// The kafkajs usage the root README documents for producing through failovers: an idempotent
// producer (unlimited retries, kafkajs's default for it) with maxInFlightRequests 1, each send()
// carrying one partition's records, and one send at a time per partition. kafkajs 2.2.4 takes a
// failed request's sequence numbers back for every partition in it, written or not, and gives them
// to the next records it sends there; a send that spans partitions (sendBatch, or send() routing
// by key) can therefore have a partition's next, different records answered as a duplicate of ones
// already written, and lost (issue 29: 6 of 13,156 in a chaos run). With the rule, a failed request
// is only ever retried with the same records, which the broker answers as the duplicate they are.
// Three worker processes on one data directory; the leader of most partitions is SIGKILLed twice
// while every partition is being produced to; nothing acknowledged may be lost or written twice.
const ORG = "org_kafkajs_usage";
const TOPIC = "usage";
const PARTITIONS = 4;
const KILLS = 2;
const PER_SEND = 3;
const { harness, key } = useFailoverWorld("kafkajs-usage", ORG, {
  scopes: ["topics:read", "records:read", "records:write"],
});

const owners = (partitionIds: string[]) => partitionOwners(harness.db.prisma, partitionIds);

describe("kafkajs through SIGKILLed leaders, used as the README says", () => {
  it("loses no acknowledged record and writes none twice", async () => {
    const { live, partitionIds, brokers } = await kafkaFleet(
      harness,
      ["ku-1", "ku-2", "ku-3"],
      FAILOVER_LEASE_TTL_MS,
      { org: ORG, name: TOPIC, partitions: PARTITIONS, spread: false },
    );
    const produce = await producePerPartition(
      { brokers, key, clientId: "kafkajs-usage-test" },
      {
        topic: TOPIC,
        partitions: PARTITIONS,
        perSend: PER_SEND,
        value: (partition, n, i) => `p${partition}-${n}-${i}`,
        keyed: true,
      },
    );
    // partition → offset → value, only what a send's answer acknowledged; every value ever sent.
    const { acked, sent, completions } = produce;

    for (let kill = 0; kill < KILLS; kill++) {
      const before = completions.length;
      await eventually("sends acknowledged before the kill", 20_000, async () =>
        completions.length >= before + 4 * PARTITIONS ? true : undefined,
      );
      // The worker leading the most partitions dies; its partitions move to the ones left.
      const victim = busiestWorker(await owners(partitionIds), live.keys());
      const killedAt = Date.now();
      live.get(victim)!.child.kill("SIGKILL");
      live.delete(victim);
      // Every partition acknowledged a send begun after the kill: its leader answered again.
      await eventually(
        `every partition produced to after kill ${kill + 1}`,
        30 * FAILOVER_LEASE_TTL_MS,
        async () =>
          Array.from({ length: PARTITIONS }, (_, p) =>
            completions.some((c) => c.partition === p && c.startedAt >= killedAt),
          ).every(Boolean)
            ? true
            : undefined,
      );
      console.log(
        `kill ${kill + 1}: every partition acknowledged again ${Date.now() - killedAt} ms after the SIGKILL`,
      );
    }
    await produce.stop();
    expect(produce.failures).toBe(0);

    const [reader] = [...live.values()];
    const stored = Array.from({ length: PARTITIONS }, () => new Map<number, string>());
    const copies = new Map<string, number>();
    for (const [p, o, v] of await kcatReadAll(`${reader!.kafka.host}:${reader!.kafka.port}`, key, TOPIC)) {
      stored[p]!.set(o, v);
      copies.set(v, (copies.get(v) ?? 0) + 1);
    }
    for (let p = 0; p < PARTITIONS; p++) {
      expect(acked[p]!.size).toBeGreaterThan(0);
      // Nothing acknowledged is lost: each acknowledged record is at its acknowledged offset.
      for (const [offset, value] of acked[p]!) expect(stored[p]!.get(offset), `${p}@${offset}`).toBe(value);
    }
    // Nothing is written twice, and nothing is in the log that was not sent.
    expect([...copies].filter(([, n]) => n > 1)).toEqual([]);
    expect([...copies.keys()].filter((v) => !sent.has(v))).toEqual([]);
  });
});
