import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ApiKey } from "@lastword/kafka-protocol";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNamedTopic, RawKafka } from "./kafka-client";
import { FAILOVER_LEASE_TTL_MS, useFailoverWorld } from "./kafka-world";
import { eventually } from "./test-topics";
import type { WorkerProcess } from "./worker-process";

// Exactly once through a consume-transform-produce loop (librdkafka-eos-pipeline.py: read topic A
// in a group, write topic B in transactions carrying the consumed offsets) while the worker that
// coordinates its transactional id and owns partitions of both topics is SIGKILLed mid-run: every
// input record appears in B exactly once as committed data, and the group's offsets reach A's end.

const ORG = "org_txn_eos";
const SOURCE = "eos-in";
const SINK = "eos-out";
const PARTITIONS = 4;
/** 400 in the suite; `LASTWORD_EOS_RECORDS` runs it bench-sized (the figures in DESIGN.md). */
const COUNT = Number(process.env.LASTWORD_EOS_RECORDS ?? 400);
const GROUP = "eos";
/** What the test writes after the pipeline's output, to know a reader has read it all. */
const END = "end-of-output";
const { harness, key } = useFailoverWorld("kafka-txn-eos", ORG);
const script = fileURLToPath(new URL("./librdkafka-eos-pipeline.py", import.meta.url));
let workers: WorkerProcess[] = [];

beforeAll(async () => {
  await createNamedTopic(harness.db.prisma, ORG, SOURCE, PARTITIONS, { "cleanup.policy": "compact" });
  await createNamedTopic(harness.db.prisma, ORG, SINK, PARTITIONS, { "cleanup.policy": "compact" });
  const env = { WORKER_SCHEDULING: "off", WORKER_KAFKA_PORT: "0" };
  workers = await Promise.all(
    ["eos-w1", "eos-w2", "eos-w3"].map((id) =>
      harness.spawnWorker(id, { leaseTtlMs: FAILOVER_LEASE_TTL_MS, env }),
    ),
  );
});

afterAll(() => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
});

describe("exactly once under a SIGKILL", () => {
  it("a consume-transform-produce loop writes every input record to the output exactly once while the coordinator and a partition owner is killed", async () => {
    await eventually("every worker owns partitions", 30_000, async () => {
      const rows = await harness.db.prisma.partition.findMany({ select: { ownerWorkerId: true } });
      const owners = new Set(rows.map((r) => r.ownerWorkerId));
      return workers.every((w) => owners.has(w.id)) ? true : undefined;
    });
    // The victim coordinates the pipeline's transactional id (asked first) and owns partitions.
    const victim = workers[0]!;
    const raw = await RawKafka.login(victim.kafka, key);
    expect((await raw.call(ApiKey.FindCoordinator, 3, { key: `${GROUP}-pipeline`, keyType: 1 })).nodeId).toBe(
      victim.kafka.nodeId,
    );
    raw.close();
    const brokers = workers.map((w) => `${w.kafka.host}:${w.kafka.port}`);
    const kafka = (clientId: string) =>
      new Kafka({
        brokers,
        clientId,
        sasl: { mechanism: "plain", username: key.id, password: key.secret },
        connectionTimeout: 1_000,
        retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1_000 },
        logLevel: logLevel.NOTHING,
      });
    const input = kafka("eos-input").producer({ idempotent: true, maxInFlightRequests: 1 });
    await input.connect();
    await input.send({
      topic: SOURCE,
      messages: Array.from({ length: COUNT }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
    });
    await input.disconnect();

    const startedAt = performance.now();
    const pipeline = spawn(
      "/usr/bin/python3",
      [script, brokers.join(","), key.id, key.secret, SOURCE, SINK, GROUP, String(COUNT)],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const lines: Record<string, unknown>[] = [];
    let elapsedMs = 0;
    createInterface({ input: pipeline.stdout! }).on("line", (line) => lines.push(JSON.parse(line)));
    const exited = new Promise<number | null>((resolve) => pipeline.once("exit", (code) => resolve(code)));
    try {
      // Kill once the loop has committed some of the input, with more to go.
      await eventually("the pipeline committed part of the input", 60_000, async () => {
        const rows = await harness.db.prisma.consumerGroupOffset.findMany({
          where: { group: { name: GROUP } },
        });
        const done = rows.reduce((sum, r) => sum + Number(r.offset), 0);
        return done > 0 && done < COUNT ? true : undefined;
      });
      victim.child.kill("SIGKILL");
      expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 150_000))])).toBe(
        0,
      );
      elapsedMs = performance.now() - startedAt;
    } finally {
      if (pipeline.exitCode === null) pipeline.kill("SIGKILL");
    }
    expect(lines.at(-1)).toHaveProperty("commits");
    console.info("eos pipeline", {
      records: COUNT,
      seconds: Math.round(elapsedMs / 100) / 10,
      ...lines.at(-1),
    });

    const reader = kafka("eos-reader").consumer({
      groupId: "eos-reader",
      readUncommitted: false,
      maxWaitTimeInMs: 200,
    });
    await reader.connect();
    await reader.subscribe({ topic: SINK, fromBeginning: true });
    const seen = new Map<string, number>();
    const ends = new Set<number>();
    await reader.run({
      eachMessage: async ({ partition, message }) => {
        const value = message.value!.toString();
        if (value === END) ends.add(partition);
        else seen.set(value, (seen.get(value) ?? 0) + 1);
      },
    });
    try {
      // Read to the end: a plain record after everything the pipeline wrote, on every partition.
      // A read_committed reader reaches it only after every committed record before it, so a
      // duplicate anywhere would have been read by then.
      const closer = kafka("eos-end").producer({ idempotent: true, maxInFlightRequests: 1 });
      await closer.connect();
      await closer.send({
        topic: SINK,
        messages: Array.from({ length: PARTITIONS }, (_, partition) => ({
          partition,
          key: `end-${partition}`,
          value: END,
        })),
      });
      await closer.disconnect();
      await eventually("every partition read to its end", 60_000, async () =>
        ends.size === PARTITIONS ? true : undefined,
      );
    } finally {
      await reader.disconnect();
    }
    expect(seen.size).toBe(COUNT);
    expect([...seen.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    for (let i = 0; i < COUNT; i++) expect(seen.has(`out-v${i}`)).toBe(true);
  });
});
