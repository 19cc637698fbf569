import { TcpProxy } from "@lastword/db/testing";
import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { ManualClock } from "@lastword/logstore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY_CACHE_MS, KEY_OUTAGE_GRACE_MS } from "../src/kafka/kafka-principals";
import type { RunningWorker } from "../src/worker";
import { CLIENT_SCOPES, createKafkaKey, RawKafka } from "./kafka-client";
import { useWorkerHarness } from "./worker-harness";

// Kafka logins while Postgres refuses the worker's connections (issue 29: every new connection
// was closed during login): a key this worker verified within KEY_OUTAGE_GRACE_MS still logs in
// from the verified copy; a key it never verified cannot; past the bound the copy is not used; once
// Postgres answers again, a revocation made meanwhile applies at the next login. The worker reaches
// Postgres through a relay the test cuts; time is a ManualClock, so the bounds are exact.

const ORG = "org_kafka_auth_outage";
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

describe("Kafka logins while Postgres is unreachable", () => {
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
