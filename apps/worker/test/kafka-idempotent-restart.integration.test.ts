import { once } from "node:events";
import { createServer } from "node:net";
import type { TestDatabase } from "@lastword/db/testing";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafkaKey, createNamedTopic } from "./kafka-client";
import { eventually } from "./test-topics";
import { openWorkerHarness, type WorkerHarness } from "./worker-harness";

// Scenario 17 of shared/reference/kafka-protocol.md §5.2 across a broker restart: the worker process
// dies (SIGKILL, LASTWORD_FAULT_POINT=after-append) after a kafkajs idempotent Produce is durable
// but before it is answered; the same worker comes back on the same port, rebuilds the partition's
// producer state from its files, and answers kafkajs's resend with the original offsets.
const ORG = "org_idem_restart";
const WORKER = "idem-restart-w1";
let harness: WorkerHarness;
let db: TestDatabase;
let key: { id: string; secret: string };

/** A port free right now, so the restarted process can bind the one the client knows. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

beforeAll(async () => {
  harness = await openWorkerHarness({ name: "kafka-idem-restart", ownerWaitMs: 20_000 });
  db = harness.db;
  key = await createKafkaKey(db.prisma, ORG, ["topics:read", "records:read", "records:write"]);
});

afterAll(async () => {
  await harness?.close();
});

describe("idempotent produce across a worker restart", () => {
  it("17. killed after the append, restarted: kafkajs re-sends, gets the original offsets, and the log holds each record once", async () => {
    const port = await freePort();
    const spawn = (env: Record<string, string> = {}) =>
      harness.spawnWorker(WORKER, {
        leaseTtlMs: 2_000,
        env: { WORKER_SCHEDULING: "off", WORKER_KAFKA_PORT: String(port), ...env },
      });
    const doomed = await spawn({ LASTWORD_FAULT_POINT: "after-append" });
    const [partitionId] = await createNamedTopic(db.prisma, ORG, "ledger", 1, {
      "cleanup.policy": "compact",
    });
    await eventually("the partition is hosted", 20_000, async () => {
      const row = await db.prisma.partition.findUnique({ where: { id: partitionId! } });
      return row?.ownerWorkerId === WORKER ? true : undefined;
    });

    const producer = new Kafka({
      brokers: [`127.0.0.1:${port}`],
      clientId: "kafka-idem-restart-test",
      sasl: { mechanism: "plain", username: key.id, password: key.secret },
      connectionTimeout: 1_000,
      logLevel: logLevel.NOTHING,
      // Outlasts the restart: the idempotent producer keeps re-sending the same sequence.
      retry: { retries: 100, initialRetryTime: 100, maxRetryTime: 500 },
    }).producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const exited = once(doomed.child, "exit");
    const sending = producer.send({
      topic: "ledger",
      acks: -1,
      messages: [0, 1, 2].map((i) => ({ key: `a-${i}`, value: `v-${i}` })),
    });
    const [, signal] = await exited;
    expect(signal).toBe("SIGKILL");

    await spawn();
    const [first] = await sending;
    expect(first!.baseOffset).toBe("0");
    const [second] = await producer.send({
      topic: "ledger",
      acks: -1,
      messages: [{ key: "b-0", value: "after" }],
    });
    expect(second!.baseOffset).toBe("3");
    await producer.disconnect();
    const { records } = await harness.client.fetch({ partitionId: partitionId!, offset: 0 });
    expect(records.map((r) => [r.offset, r.key?.toString()])).toEqual([
      [0, "a-0"],
      [1, "a-1"],
      [2, "a-2"],
      [3, "b-0"],
    ]);
  });
});
