import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, provisionTenantKey, rest, startHarness } from "./api-harness";

// The topic page's Kafka clients: rows the workers write behind (client id and ApiVersions v3
// software per topic and role), the last day's only, and only the tenant's own topic.
let h: Harness;
let keyA: string;
let keyB: string;

async function topicId(organizationId: string, name: string): Promise<string> {
  return (await h.db.prisma.topic.findFirstOrThrow({ where: { organizationId, name } })).id;
}

beforeAll(async () => {
  h = await startHarness("kafka-clients");
  const a = await provisionTenantKey(h.server, "Kca");
  const b = await provisionTenantKey(h.server, "Kcb");
  keyA = a.key;
  keyB = b.key;
  for (const key of [keyA, keyB]) {
    expect(
      (await rest(h.server, { apiKey: key }, "POST", "/topics", { name: "flags", partitions: 1 })).status,
    ).toBe(201);
  }
  const now = Date.now();
  const seen = (topic: string, role: string, clientId: string, ageMs: number) => ({
    topicId: topic,
    role,
    clientId,
    softwareName: "apache-kafka-java",
    softwareVersion: "3.7.0",
    lastSeenAt: new Date(now - ageMs),
  });
  const [topicA, topicB] = [
    await topicId(a.organizationId, "flags"),
    await topicId(b.organizationId, "flags"),
  ];
  await h.db.prisma.kafkaClientSeen.createMany({
    data: [
      seen(topicA, "producer", "flag-writer", 60_000),
      seen(topicA, "consumer", "flag-reader", 1_000),
      // Two days ago: no longer "recently".
      seen(topicA, "consumer", "old-reader", 2 * 86_400_000),
      seen(topicB, "producer", "b-writer", 1_000),
    ],
  });
});

afterAll(() => h?.close());

describe("topics.kafkaClients", () => {
  it("lists the last day's producers and consumers of the tenant's topic, most recent first", async () => {
    const answer = await rest(h.server, { apiKey: keyA }, "GET", "/topics/flags/kafka-clients");
    expect(answer.status).toBe(200);
    const { clients } = answer.body as {
      clients: { role: string; clientId: string; softwareName: string }[];
    };
    expect(clients.map((c) => [c.role, c.clientId, c.softwareName])).toEqual([
      ["consumer", "flag-reader", "apache-kafka-java"],
      ["producer", "flag-writer", "apache-kafka-java"],
    ]);
    const other = await rest(h.server, { apiKey: keyB }, "GET", "/topics/flags/kafka-clients");
    expect((other.body as { clients: { clientId: string }[] }).clients.map((c) => c.clientId)).toEqual([
      "b-writer",
    ]);
    expect((await rest(h.server, { apiKey: keyA }, "GET", "/topics/missing/kafka-clients")).status).toBe(404);
  });
});
