import { randomBytes } from "node:crypto";
import { type ApiServer, createApiServer } from "@lastword/api";
import type { DataPlane } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import { Redis } from "ioredis";

/**
 * A REST call to an in-process control plane (`server.handleRest`, never over a socket) as
 * `apiKey` under `publicUrl`: the status, the headers and the JSON answer.
 */
export async function restCall(
  server: ApiServer,
  publicUrl: string,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await server.handleRest(
    new Request(`${publicUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

/**
 * An in-process control plane over the harness's database and data plane, with Redis keys under a
 * prefix of its own: `rest` calls it as an API key; `close` removes its Redis keys and disconnects.
 */
export function openControlPlane(
  h: { db: { prisma: PrismaClient }; client: DataPlane },
  name: string,
  publicUrl = "http://localhost:3999",
): {
  server: ApiServer;
  rest(apiKey: string, method: string, path: string, body?: unknown): ReturnType<typeof restCall>;
  close(): Promise<void>;
} {
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const redisPrefix = `lwtest-${name}-${randomBytes(4).toString("hex")}`;
  const server = createApiServer({
    prisma: h.db.prisma,
    redis,
    dataPlane: h.client,
    publicUrl,
    authSecret: randomBytes(32).toString("hex"),
    redisPrefix,
  });
  return {
    server,
    rest: (apiKey, method, path, body) => restCall(server, publicUrl, apiKey, method, path, body),
    async close() {
      const keys = await redis.keys(`${redisPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
