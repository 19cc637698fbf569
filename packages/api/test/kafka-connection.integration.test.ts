import { describe, expect, it } from "vitest";
import { rest, signUp, useHarness } from "./api-harness";

const h = useHarness("kafkaconn");

describe("kafka.connection", () => {
  it("lists the advertised listener of live, running workers only, behind auth", async () => {
    const now = Date.now();
    await h.db.prisma.worker.createMany({
      data: [
        {
          id: "live",
          address: "http://a",
          heartbeatAt: new Date(now),
          kafkaHost: "10.0.0.1",
          kafkaPort: 9092,
        },
        {
          id: "stopped",
          address: "http://b",
          heartbeatAt: new Date(now),
          stoppedAt: new Date(now),
          kafkaHost: "10.0.0.2",
          kafkaPort: 9092,
        },
        {
          id: "stale",
          address: "http://c",
          heartbeatAt: new Date(now - 60_000),
          kafkaHost: "10.0.0.3",
          kafkaPort: 9092,
        },
        { id: "no-listener", address: "http://d", heartbeatAt: new Date(now) },
      ],
    });
    const session = await signUp(h.server, "kafka-settings@example.com", "Kafka Settings");
    const answer = await rest(h.server, { cookie: session.cookie }, "GET", "/kafka/connection");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      bootstrapServers: ["10.0.0.1:9092"],
      securityProtocol: "SASL_PLAINTEXT",
      mechanisms: ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"],
      latestView: null,
    });
    expect((await rest(h.server, {}, "GET", "/kafka/connection")).status).toBe(401);
  });

  it("names a compacted topic's latest-value view, none for a delete topic, and only the tenant's topics", async () => {
    const owner = await signUp(h.server, "views@example.com", "Views");
    const other = await signUp(h.server, "other-views@example.com", "Other Views");
    const create = (cookie: string, name: string, cleanupPolicy: string) =>
      rest(h.server, { cookie }, "POST", "/topics", {
        name,
        partitions: 1,
        configs: { "cleanup.policy": cleanupPolicy },
      });
    expect((await create(owner.cookie, "profiles", "compact")).status).toBe(201);
    expect((await create(owner.cookie, "clicks", "delete")).status).toBe(201);
    expect((await create(owner.cookie, "mixed", "compact,delete")).status).toBe(201);
    const view = async (cookie: string, topic: string) => {
      const answer = await rest(h.server, { cookie }, "GET", `/kafka/connection?topic=${topic}`);
      return { status: answer.status, view: (answer.body as { latestView?: unknown }).latestView };
    };
    expect(await view(owner.cookie, "profiles")).toEqual({ status: 200, view: "profiles.latest" });
    expect(await view(owner.cookie, "mixed")).toEqual({ status: 200, view: "mixed.latest" });
    expect(await view(owner.cookie, "clicks")).toEqual({ status: 200, view: null });
    // Another tenant's topic answers as a missing one.
    expect((await view(other.cookie, "profiles")).status).toBe(404);
    // A topic named with the suffix before it was reserved keeps the name: no view is listed under it.
    const { organizationId } = await h.db.prisma.topic.findFirstOrThrow({ where: { name: "profiles" } });
    await h.db.prisma.topic.create({
      data: { organizationId, name: "profiles.latest", partitionCount: 1, configs: {} },
    });
    expect(await view(owner.cookie, "profiles")).toEqual({ status: 200, view: null });
  });
});
