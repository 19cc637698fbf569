import { eventually, TcpProxy } from "@lastword/db/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ApiServer, REDIS_CLIENT_OPTIONS } from "../src/index";
import {
  anotherWebProcess,
  type Harness,
  provisionTenantKey,
  REDIS_URL,
  rest,
  startHarness,
} from "./api-harness";

// A web process whose Redis (request-rate counters, Idempotency-Key dedupe) goes away: requests
// that need it answer a retriable 503 with Retry-After, not a 500, and the client's connection
// errors are handled (one log line), not printed by ioredis as unhandled on every reconnect.
let h: Harness;
let relay: TcpProxy;
let redis: Redis;
let server: ApiServer;
let key: string;
const upstream = new URL(REDIS_URL);
const logged: { fields: Record<string, unknown>; message: string }[] = [];

beforeAll(async () => {
  h = await startHarness("redis-outage");
  key = (await provisionTenantKey(h.server, "Red")).key;
  relay = await TcpProxy.start(upstream.hostname, Number(upstream.port || 6379));
  // As apps/web builds its client (src/server/api-server.ts).
  redis = new Redis(relay.relayUrl(REDIS_URL), REDIS_CLIENT_OPTIONS);
  server = anotherWebProcess(h, {
    redis,
    logger: { error: (fields, message) => logged.push({ fields, message }) },
  });
});

afterAll(async () => {
  redis?.disconnect();
  await relay?.close();
  await h?.close();
});

async function listTopics() {
  return rest(server, { apiKey: key }, "GET", "/topics");
}

describe("REST while Redis is down", () => {
  it("answers 503 REDIS_UNAVAILABLE with Retry-After, logs the outage once (no unhandled client errors), and serves again once Redis is back", async () => {
    expect((await listTopics()).status).toBe(200);
    const consoleError = vi.spyOn(console, "error");
    try {
      // Closed, not cut: reconnects are refused (ECONNREFUSED), as with a stopped Redis.
      await relay.close();
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await listTopics();
        expect(refused.status).toBe(503);
        expect(refused.body.code).toBe("REDIS_UNAVAILABLE");
        expect(refused.headers.get("retry-after")).toBe("5");
      }
      // Reconnect attempts keep failing meanwhile; each is an `error` event on the client.
      let errors = 0;
      const count = () => errors++;
      redis.on("error", count);
      await eventually("several failed reconnects", 10_000, async () => (errors >= 3 ? true : undefined));
      redis.off("error", count);
      const unhandled = consoleError.mock.calls.filter((call) => String(call[0]).includes("[ioredis]"));
      expect(unhandled).toEqual([]);
      expect(logged.map((line) => line.message)).toEqual([
        "redis unreachable: requests that need it answer 503 until it is back",
      ]);
    } finally {
      consoleError.mockRestore();
    }
    // Redis restarts at the same address: the client reconnects by itself.
    relay = await TcpProxy.start(upstream.hostname, Number(upstream.port || 6379), relay.port);
    await eventually("requests served again", 10_000, async () =>
      (await listTopics()).status === 200 ? true : undefined,
    );
    expect(logged.map((line) => line.message)).toEqual([
      "redis unreachable: requests that need it answer 503 until it is back",
      "redis reachable again",
    ]);
  });

  it("answers 503 REDIS_UNAVAILABLE within the command timeout while Redis stops answering, and serves once the connection is renewed", async () => {
    expect((await listTopics()).status).toBe(200);
    // The connection stays open and requests reach Redis; no answer comes back.
    relay.muteReplies();
    const started = performance.now();
    const refused = await listTopics();
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe("REDIS_UNAVAILABLE");
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(performance.now() - started).toBeLessThan(REDIS_CLIENT_OPTIONS.commandTimeout + 3_000);
    // The path is back once the silent connection is dropped and the client reconnects.
    relay.cut();
    relay.restore();
    await eventually("requests served again", 15_000, async () =>
      (await listTopics()).status === 200 ? true : undefined,
    );
  });
});
