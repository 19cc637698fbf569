import { decodeResponse, ErrorCode } from "@lastword/kafka-protocol";
import { encodeRecordBatch } from "@lastword/logstore";
import { describe, expect, it } from "vitest";
import {
  CLIENT_SCOPES,
  createKafkaKey,
  createNamedTopic,
  fetchBody,
  RawKafka,
  metricSample as sample,
} from "./kafka-client";
import { useKafkaWorld } from "./kafka-world";
import { eventually } from "./test-topics";

// Operating the listener: its Prometheus metrics in the worker's /metrics, and the limits on open
// connections per worker and per API key.

const ORG = "org_kafka_ops";
const MAX_CONNECTIONS = 4;
const MAX_PER_KEY = 2;
let otherKey: { id: string; secret: string };
let topicId: string;
const world = useKafkaWorld({ name: "kafka-ops", secret: "kafka-ops-secret" }, ORG, {
  partitions: 1,
  worker: {
    kafka: {
      limits: { maxConnections: MAX_CONNECTIONS, maxConnectionsPerKey: MAX_PER_KEY },
      clientSightingsFlushMs: 100,
    },
  },
  setup: async (h) => {
    const [partitionId] = await createNamedTopic(h.db.prisma, ORG, "observed", 1);
    topicId = (await h.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId! } })).topicId;
    otherKey = await createKafkaKey(h.db.prisma, ORG, CLIENT_SCOPES);
  },
});

async function metrics(): Promise<string> {
  return (await fetch(`${world.worker.address}/metrics`)).text();
}

/** Open connections over every tenant label (the gauge has one series per tenant with any). */
function openConnections(body: string): number {
  return body
    .split("\n")
    .filter((l) => l.startsWith("lastword_kafka_open_connections{"))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

const open = () => RawKafka.open(world.worker.kafka!.host, world.worker.kafka!.port);

async function saslAuthenticate(raw: RawKafka, k: { id: string; secret: string }) {
  await raw.request(17, 1, { mechanism: "PLAIN" });
  const frame = await raw.request(36, 1, { authBytes: Buffer.from(`\0${k.id}\0${k.secret}`) }, 0);
  return decodeResponse(36, 1, frame).body;
}

describe("listener metrics", () => {
  it("counts requests per API, version, outcome and tenant, with latency, bytes and open connections", async () => {
    const raw = await open();
    await raw.loginPlain(world.key.id, world.key.secret);
    // Not logged in yet: counted under the empty tenant until it authenticates.
    const anonymous = await open();
    const before = await metrics();
    const series = `lastword_kafka_requests_total{api="Metadata",version="9",outcome="ok",tenant="${ORG}"}`;
    for (let i = 0; i < 3; i++)
      await raw.request(3, 9, { topics: [{ name: "observed" }], allowAutoTopicCreation: false }, 0);
    const after = await metrics();
    expect(sample(after, series) - sample(before, series)).toBe(3);
    expect(
      sample(after, `lastword_kafka_request_seconds_count{api="Metadata",version="9",outcome="ok"}`),
    ).toBeGreaterThanOrEqual(3);
    const bytesIn = `lastword_kafka_request_bytes_total{api="Metadata",version="9",tenant="${ORG}"}`;
    const bytesOut = `lastword_kafka_response_bytes_total{api="Metadata",version="9",tenant="${ORG}"}`;
    expect(sample(after, bytesIn) - sample(before, bytesIn)).toBeGreaterThan(0);
    expect(sample(after, bytesOut) - sample(before, bytesOut)).toBeGreaterThan(
      sample(after, bytesIn) - sample(before, bytesIn),
    );
    // Before authentication the tenant is unknown: the handshake counts under the empty tenant.
    expect(
      sample(after, `lastword_kafka_requests_total{api="SaslHandshake",version="1",outcome="ok",tenant=""}`),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(after, `lastword_kafka_open_connections{tenant="${ORG}"}`)).toBe(1);
    expect(sample(after, `lastword_kafka_open_connections{tenant=""}`)).toBe(1);
    await anonymous.loginPlain(otherKey.id, otherKey.secret);
    expect(sample(await metrics(), `lastword_kafka_open_connections{tenant="${ORG}"}`)).toBe(2);
    expect(sample(await metrics(), `lastword_kafka_open_connections{tenant=""}`)).toBe(0);
    raw.close();
    anonymous.close();
    await eventually("the connections counted closed", 5_000, async () =>
      openConnections(await metrics()) === 0 ? true : undefined,
    );
  });

  it("counts an answer carrying a Kafka error code, at the top or for a topic or partition, as outcome error", async () => {
    const raw = await open();
    await raw.loginPlain(world.key.id, world.key.secret);
    const series = (api: string, version: number, outcome: string) =>
      `lastword_kafka_requests_total{api="${api}",version="${version}",outcome="${outcome}",tenant="${ORG}"}`;
    const before = await metrics();
    // A topic-level error (the topic does not exist) and a partition-level one (Fetch of it).
    await raw.request(3, 9, { topics: [{ name: "nowhere" }], allowAutoTopicCreation: false }, 0);
    await raw.request(1, 11, fetchBody("nowhere", 0, 0));
    // A top-level one: a second SASL handshake on an authenticated connection.
    await raw.request(17, 1, { mechanism: "PLAIN" });
    await raw.request(3, 9, { topics: [{ name: "observed" }], allowAutoTopicCreation: false }, 0);
    const after = await metrics();
    const delta = (s: string) => sample(after, s) - sample(before, s);
    expect(delta(series("Metadata", 9, "error"))).toBe(1);
    expect(delta(series("Metadata", 9, "ok"))).toBe(1);
    expect(delta(series("Fetch", 11, "error"))).toBe(1);
    expect(delta(series("Fetch", 11, "ok"))).toBe(0);
    expect(delta(series("SaslHandshake", 1, "error"))).toBe(1);
    raw.close();
    await eventually("the connection counted closed", 5_000, async () =>
      openConnections(await metrics()) === 0 ? true : undefined,
    );
  });
});

describe("connection limits", () => {
  it("a key over its limit is refused at SASL with a message; a full worker makes room by closing its oldest unauthenticated socket, and refuses new ones only when every slot is authenticated", async () => {
    const held: RawKafka[] = [];
    for (let i = 0; i < MAX_PER_KEY; i++) {
      const raw = await open();
      expect((await saslAuthenticate(raw, world.key)).errorCode).toBe(0);
      held.push(raw);
    }
    const refused = await open();
    const answer = await saslAuthenticate(refused, world.key);
    expect(answer.errorCode).toBe(ErrorCode.SASL_AUTHENTICATION_FAILED);
    expect(answer.errorMessage).toMatch(/already holds 2 open connections/);
    await refused.closedByServer();
    // Another key of the same tenant is not held to the first one's count.
    const other = await open();
    expect((await saslAuthenticate(other, otherKey)).errorCode).toBe(0);
    held.push(other);
    await eventually("the refused one gone", 5_000, async () =>
      openConnections(await metrics()) === 3 ? true : undefined,
    );

    // 3 open, limit 4: one more is accepted; the next takes the place of that unauthenticated one.
    const idle = await open();
    const next = await open();
    await idle.closedByServer();
    expect((await saslAuthenticate(next, otherKey)).errorCode).toBe(0);
    held.push(next);
    // 4 authenticated, limit 4: a new socket is closed at once, before any request.
    const beyond = await open();
    await beyond.closedByServer();
    const body = await metrics();
    expect(sample(body, `lastword_kafka_refused_connections_total{reason="key",tenant="${ORG}"}`)).toBe(1);
    expect(sample(body, `lastword_kafka_refused_connections_total{reason="evicted",tenant=""}`)).toBe(1);
    expect(sample(body, `lastword_kafka_refused_connections_total{reason="worker",tenant=""}`)).toBe(1);
    for (const raw of held) raw.close();
    await eventually("every connection closed", 5_000, async () =>
      openConnections(await metrics()) === 0 ? true : undefined,
    );
  });
});

describe("clients seen per topic", () => {
  it("records the client id and the ApiVersions v3 software of producers and consumers of a topic", async () => {
    const raw = await open();
    await raw.request(18, 3, { clientSoftwareName: "ops-test-client", clientSoftwareVersion: "1.2.3" });
    await raw.loginPlain(world.key.id, world.key.secret);
    const batch = encodeRecordBatch([{ key: null, value: Buffer.from("seen") }], {
      baseOffset: 0,
      appendTimeMs: 1,
    });
    await raw.request(0, 7, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 5000,
      topicData: [
        { name: "observed", partitionData: [{ index: 0, records: batch }] },
        // Unknown here: nothing is recorded for it.
        { name: "nowhere", partitionData: [{ index: 0, records: batch }] },
      ],
    });
    await raw.request(1, 11, fetchBody("observed", 0, 0));
    raw.close();
    const rows = await eventually("both roles recorded", 10_000, async () => {
      const found = await world.h.db.prisma.kafkaClientSeen.findMany({ orderBy: { role: "asc" } });
      return found.length >= 2 ? found : undefined;
    });
    expect(rows.map((r) => [r.topicId, r.role, r.clientId, r.softwareName, r.softwareVersion])).toEqual([
      [topicId, "consumer", "raw-test", "ops-test-client", "1.2.3"],
      [topicId, "producer", "raw-test", "ops-test-client", "1.2.3"],
    ]);
  });
});
