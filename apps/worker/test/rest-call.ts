import { randomBytes } from "node:crypto";
import { type ApiServer, type ApiServerOptions, createApiServer } from "@lastword/api";
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

/** The public URL the tests' in-process control planes answer under. */
export const TEST_PUBLIC_URL = "http://localhost:3999";

/** An in-process control plane beside a worker test's fleet, and REST calls to it. */
export interface TestControlPlane {
  server: ApiServer;
  /** A REST call as `apiKey` (restCall under TEST_PUBLIC_URL). */
  rest(apiKey: string, method: string, path: string, body?: unknown): ReturnType<typeof restCall>;
  /** Closes the server, removes its Redis keys and disconnects. */
  close(): Promise<void>;
}

/**
 * The API's server on the test's database and data plane, on the shared Redis under a key prefix
 * of its own (`name` and a random suffix), with a random auth secret.
 */
export function openControlPlane(
  options: Pick<ApiServerOptions, "prisma" | "dataPlane" | "clock"> & { name: string },
): TestControlPlane {
  const { name, ...deps } = options;
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const redisPrefix = `lwtest-${name}-${randomBytes(4).toString("hex")}`;
  const server = createApiServer({
    ...deps,
    redis,
    publicUrl: TEST_PUBLIC_URL,
    authSecret: randomBytes(32).toString("hex"),
    redisPrefix,
  });
  return {
    server,
    rest: (apiKey, method, path, body) => restCall(server, TEST_PUBLIC_URL, apiKey, method, path, body),
    async close() {
      await server.close(5_000);
      const keys = await redis.keys(`${redisPrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
