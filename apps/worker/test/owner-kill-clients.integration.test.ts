import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_LEASE_TTL_MS } from "../src/worker";
import { kafkaFleet, kcatReadAll, producePerPartition } from "./kafka-client";
import { useFailoverWorld } from "./kafka-world";
import { busiestWorker, eventually, partitionOwners } from "./test-topics";

// Issue 29's fault test: three worker processes at the default lease settings; a librdkafka
// idempotent producer, a kafkajs idempotent producer (used as the README says: one partition per
// send, one send at a time per partition) and a librdkafka consumer group of two members work on
// one topic while the worker leading the most partitions is SIGKILLed. Every partition must be
// produced to again well inside one lease TTL (the dead worker's session ends with it and peers
// claim at once), nothing either producer was told is written may be missing or written twice, and
// the group must consume every partition to its end.
const PYTHON = "/usr/bin/python3";
const ORG = "org_owner_kill";
const TOPIC = "faults";
const GROUP = "faults-group";
const PARTITIONS = 6;
const { harness, key } = useFailoverWorld("owner-kill-clients", ORG, {
  ownerWaitMs: 3 * DEFAULT_LEASE_TTL_MS,
});
const children: ChildProcess[] = [];

/** A python script of this directory, its JSON lines handed to `onEvent` as they come. */
function python(script: string, args: string[], onEvent: (event: Record<string, unknown>) => void) {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(PYTHON, [path, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  createInterface({ input: child.stdout! }).on("line", (line) => onEvent(JSON.parse(line)));
  return child;
}

const owners = (partitionIds: string[]) => partitionOwners(harness.db.prisma, partitionIds);

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

describe("SIGKILL of a partition owner under librdkafka and kafkajs producers and a librdkafka group", () => {
  it("moves every partition within seconds, loses no acknowledged record, writes none twice, and the group reads every partition to its end", async () => {
    const { live, partitionIds, brokers } = await kafkaFleet(
      harness,
      ["ok-1", "ok-2", "ok-3"],
      DEFAULT_LEASE_TTL_MS,
      { org: ORG, name: TOPIC, partitions: PARTITIONS, spread: true },
    );
    const bootstrap = brokers.join(",");

    // The group: (partition, offset) pairs its members were handed.
    const consumed = new Set<string>();
    for (let m = 0; m < 2; m++) {
      python("librdkafka-member.py", [bootstrap, key.id, key.secret, GROUP, TOPIC, "range"], (event) => {
        const record = event.record as [number, string] | undefined;
        if (record) consumed.add(`${record[0]}|${event.offset}`);
      });
    }

    // librdkafka: what its delivery reports acknowledged, and when each arrived.
    const rdkAcked: { partition: number; offset: number; value: string; at: number }[] = [];
    const rdkFailed: unknown[] = [];
    let rdkDone = false;
    const rdk = python(
      "librdkafka-producer.py",
      [bootstrap, key.id, key.secret, TOPIC, String(PARTITIONS)],
      (event) => {
        const acked = event.acked as [number, number, string] | undefined;
        if (acked) rdkAcked.push({ partition: acked[0], offset: acked[1], value: acked[2], at: Date.now() });
        if (event.failed) rdkFailed.push(event);
        if ("done" in event) rdkDone = true;
      },
    );

    // kafkajs as the README documents for failovers.
    const produce = await producePerPartition(
      { brokers, key, clientId: "owner-kill-test" },
      {
        topic: TOPIC,
        partitions: PARTITIONS,
        perSend: 2,
        value: (partition, n, i) => `kj-p${partition}-${n}-${i}`,
        keyed: false,
      },
    );
    const { acked: kjAcked, sent, completions } = produce;

    await eventually("both producers and the group under way", 60_000, async () =>
      completions.length >= 4 * PARTITIONS &&
      new Set(rdkAcked.map((a) => a.partition)).size === PARTITIONS &&
      consumed.size > 0
        ? true
        : undefined,
    );
    const led = await owners(partitionIds);
    const victim = busiestWorker(led, live.keys());
    const moved = led.flatMap((owner, p) => (owner === victim ? [p] : []));
    const killedAt = Date.now();
    live.get(victim)!.child.kill("SIGKILL");
    live.delete(victim);

    // kafkajs: a send begun after the kill acknowledged on every moved partition; librdkafka: an
    // acknowledgement after it on each. Bounded by one lease TTL: only the ended session explains it.
    const resumed = await eventually(
      "every moved partition produced to again",
      3 * DEFAULT_LEASE_TTL_MS,
      async () => {
        const at = moved.map(
          (p) => completions.find((c) => c.partition === p && c.startedAt >= killedAt)?.doneAt,
        );
        const rdkAt = moved.map((p) => rdkAcked.find((a) => a.partition === p && a.at >= killedAt)?.at);
        return [...at, ...rdkAt].every((t) => t !== undefined)
          ? Math.max(...(at as number[])) - killedAt
          : undefined;
      },
    );
    console.log(
      `owner kill: ${moved.length} partitions served again ${resumed} ms after the SIGKILL (kafkajs)`,
    );
    expect(resumed).toBeLessThan(DEFAULT_LEASE_TTL_MS);

    const ackedAtKill = completions.length;
    await eventually("producing goes on", 30_000, async () =>
      completions.length >= ackedAtKill + 4 * PARTITIONS ? true : undefined,
    );
    await produce.stop();
    rdk.kill("SIGINT");
    await eventually("librdkafka flushed", 90_000, async () => (rdkDone ? true : undefined));
    expect(produce.failures).toBe(0);
    expect(rdkFailed).toEqual([]);

    const [reader] = [...live.values()];
    const log = await kcatReadAll(`${reader!.kafka.host}:${reader!.kafka.port}`, key, TOPIC);
    const stored = new Map(log.map(([p, o, v]) => [`${p}|${o}`, v]));
    const copies = new Map<string, number>();
    for (const [, , value] of log) copies.set(value, (copies.get(value) ?? 0) + 1);
    // Nothing acknowledged is lost: each record is at the offset its producer was told.
    for (const a of rdkAcked)
      expect(stored.get(`${a.partition}|${a.offset}`), `librdkafka ${a.value}`).toBe(a.value);
    for (const [p, records] of kjAcked.entries()) {
      for (const [offset, value] of records)
        expect(stored.get(`${p}|${offset}`), `kafkajs ${value}`).toBe(value);
    }
    // Nothing is written twice.
    expect([...copies].filter(([, n]) => n > 1)).toEqual([]);
    expect([...copies.keys()].filter((v) => v.startsWith("kj-") && !sent.has(v))).toEqual([]);
    expect(rdkAcked.length).toBeGreaterThan(0);

    // The group reads every partition to its end: every record in the log handed to a member.
    await eventually("the group consumed every record in the log", 60_000, async () =>
      [...stored.keys()].every((at) => consumed.has(at)) ? true : undefined,
    );
  }, 300_000);
});
