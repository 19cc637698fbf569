import { randomBytes } from "node:crypto";
import { eventually, TcpProxy } from "@lastword/db/testing";
import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { ManualClock } from "@lastword/logstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOG_CACHE_MS } from "../src/kafka/kafka-catalog";
import { KEY_CACHE_MS, KEY_OUTAGE_GRACE_MS } from "../src/kafka/kafka-principals";
import type { RunningWorker } from "../src/worker";
import {
  CLIENT_SCOPES,
  createKafkaKey,
  createNamedTopic,
  kcatReadAll,
  plainKafkajs,
  RawKafka,
} from "./kafka-client";
import { useWorkerHarness } from "./worker-harness";

// Kafka logins while Postgres refuses the worker's connections (issue 29: every new connection
// was closed during login): a key this worker verified within KEY_OUTAGE_GRACE_MS still logs in
// from the verified copy; a key it never verified cannot; past the bound the copy is not used; once
// Postgres answers again, a revocation made meanwhile applies at the next login. The worker reaches
// Postgres through a relay the test cuts; time is a ManualClock, so the bounds are exact.

const ORG = "org_kafka_auth_outage";
const SERVING_ORG = "org_kafka_outage_serving";
const clock = new ManualClock();
const harness = useWorkerHarness({ name: "kafka-auth-outage" });
let proxy: TcpProxy;
let worker: RunningWorker;

/** One SASL/PLAIN login on a fresh connection: its error code, or "closed" when the worker hung up. */
async function login(key: { id: string; secret: string }): Promise<number | "closed"> {
  const raw = await RawKafka.open(worker.kafka!.host, worker.kafka!.port);
  try {
    await raw.call(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" });
    const answer = await raw.call(ApiKey.SaslAuthenticate, 2, {
      authBytes: Buffer.from(`\0${key.id}\0${key.secret}`),
    });
    return answer.errorCode;
  } catch (error) {
    if (raw.closed) return "closed";
    throw error;
  } finally {
    raw.close();
  }
}

beforeAll(async () => {
  const upstream = new URL(harness.db.url);
  proxy = await TcpProxy.start(upstream.hostname, Number(upstream.port || 5432));
  worker = await harness.startWorker({
    clock,
    databaseUrl: proxy.relayUrl(harness.db.url),
    claimIntervalMs: 100,
    kafka: { host: "127.0.0.1", port: 0 },
  });
});

afterAll(() => proxy?.restore());

describe("Kafka while Postgres is unreachable", () => {
  // First: the login test moves the clock past every lease the catalog reads. Refused (cut), or
  // blackholed (frozen: connections accepted, nothing answered, so only the worker's own statement
  // timeouts end each wait). Another tenant than the login test's, whose bounds count from its start.
  it.each(["cut", "freeze"] as const)(
    "Metadata, Produce and Fetch keep serving the partitions this worker hosts through a relay %s (kafkajs, kcat)",
    async (outage) => {
      const key = await createKafkaKey(harness.db.prisma, SERVING_ORG, CLIENT_SCOPES);
      const topic = `${outage}-${randomBytes(3).toString("hex")}`;
      const [partitionId] = await createNamedTopic(harness.db.prisma, SERVING_ORG, topic, 1);
      await eventually("the worker hosts the partition", 10_000, async () =>
        worker.ownedPartitions().includes(partitionId!) ? true : undefined,
      );
      const bootstrap = `${worker.kafka!.host}:${worker.kafka!.port}`;
      const before = plainKafkajs(bootstrap, key, { clientId: "before-outage" }).producer();
      await before.connect();
      try {
        await before.send({ topic, messages: [{ key: "k", value: "before" }] });

        proxy[outage]();
        // Past the catalog's and the logins' caches: their next loads ask Postgres, which does not answer.
        clock.advance(Math.max(CATALOG_CACHE_MS, KEY_CACHE_MS));
        await before.send({ topic, messages: [{ key: "k", value: "during-1" }] });
        // New connections too: login from the verified copy, Metadata from the last answer.
        const during = plainKafkajs(bootstrap, key, { clientId: "during-outage" }).producer();
        await during.connect();
        await during.send({ topic, messages: [{ key: "k", value: "during-2" }] });
        await during.disconnect();
        expect(await kcatReadAll(bootstrap, key, topic)).toEqual([
          [0, 0, "before"],
          [0, 1, "during-1"],
          [0, 2, "during-2"],
        ]);
      } finally {
        proxy.restore();
        await before.disconnect();
      }
      // The worker reaches Postgres again (a key it never verified logs in) before the next test.
      const fresh = await createKafkaKey(harness.db.prisma, SERVING_ORG, CLIENT_SCOPES);
      await expect.poll(() => login(fresh), { timeout: 15_000 }).toBe(0);
    },
  );

  it("a verified key logs in for KEY_OUTAGE_GRACE_MS; an unverified one does not; a revocation applies once Postgres is back", async () => {
    const known = await createKafkaKey(harness.db.prisma, ORG, CLIENT_SCOPES);
    const unseen = await createKafkaKey(harness.db.prisma, ORG, CLIENT_SCOPES);
    expect(await login(known)).toBe(0);

    proxy.cut();
    // Past the login cache: the next login asks Postgres, which does not answer.
    clock.advance(KEY_CACHE_MS);
    expect(await login(known)).toBe(0);
    expect(await login({ ...known, secret: "not-the-secret" })).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(await login(unseen)).not.toBe(0);

    clock.advance(KEY_OUTAGE_GRACE_MS - KEY_CACHE_MS);
    expect(await login(known)).toBe(0);
    clock.advance(1);
    expect(await login(known)).not.toBe(0);

    proxy.restore();
    await harness.db.prisma.apiKey.update({ where: { id: known.id }, data: { enabled: false } });
    await expect.poll(() => login(unseen), { timeout: 15_000 }).toBe(0);
    expect(await login(known)).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
  });
});
