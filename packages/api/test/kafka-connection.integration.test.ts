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
    });
    expect((await rest(h.server, {}, "GET", "/kafka/connection")).status).toBe(401);
  });
});
