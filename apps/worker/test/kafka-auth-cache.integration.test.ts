import { ApiKey, ErrorCode } from "@lastword/kafka-protocol";
import { ManualClock } from "@lastword/logstore";
import { Kafka, logLevel } from "kafkajs";
import { describe, expect, it } from "vitest";
import { KEY_CACHE_MS } from "../src/kafka/kafka-principals";
import { metricSample, RawKafka } from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";

// The SASL verification cache: a reconnect storm of one key costs Postgres one credential load per
// KEY_CACHE_MS, whatever the number of logins, mechanisms or wrong secrets, counted by the
// listener's lastword_kafka_credential_loads_total. Time is a ManualClock, so the window is exact.

const ORG = "org_kafka_auth_cache";
const STORM = 40;
const clock = new ManualClock();
const world = useKafkaWorld({ name: "kafka-auth-cache" }, ORG, { topics: { storm: 1 }, worker: { clock } });

async function credentialLoads(): Promise<number> {
  const body = await (await fetch(`${world.worker.address}/metrics`)).text();
  return metricSample(body, "lastword_kafka_credential_loads_total");
}

/** One PLAIN login on a fresh connection; its SaslAuthenticate error code. */
async function plainLogin(secret: string): Promise<number> {
  const raw = await RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);
  try {
    await raw.call(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" });
    const answer = await raw.call(ApiKey.SaslAuthenticate, 2, {
      authBytes: Buffer.from(`\0${world.key.id}\0${secret}`),
    });
    return answer.errorCode;
  } finally {
    raw.close();
  }
}

describe("the SASL verification cache", () => {
  it(`a storm of ${STORM} PLAIN logins, kafkajs SCRAM logins and wrong secrets with one key loads its credentials once per ${KEY_CACHE_MS} ms`, async () => {
    const before = await credentialLoads();
    const codes = await Promise.all(Array.from({ length: STORM }, () => plainLogin(world.key.secret)));
    expect(codes.every((code) => code === 0)).toBe(true);
    const kafka = new Kafka({
      brokers: [world.bootstrap],
      sasl: { mechanism: "scram-sha-512", username: world.key.id, password: world.key.secret },
      logLevel: logLevel.NOTHING,
    });
    for (let i = 0; i < 5; i++) {
      const admin = kafka.admin();
      await admin.connect();
      await admin.disconnect();
    }
    const wrong = await Promise.all(Array.from({ length: 10 }, () => plainLogin("not-the-secret")));
    expect(wrong.every((code) => code === ErrorCode.SASL_AUTHENTICATION_FAILED)).toBe(true);
    expect((await credentialLoads()) - before).toBe(1);

    // Past the window the next login loads the key again (a revoked key is also caught by the sweep).
    clock.advance(KEY_CACHE_MS);
    expect(await plainLogin(world.key.secret)).toBe(0);
    expect((await credentialLoads()) - before).toBe(2);
  });
});
