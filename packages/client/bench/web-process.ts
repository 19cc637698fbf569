/**
 * The web of the cold-start bench as its own process (production runs web and worker apart, and
 * the program doing a cold start is a third): the API's REST handler on an HTTP port, over the
 * bench's database, Redis and worker. Prints `{"listening":<port>}` once it serves.
 */
import type { AddressInfo } from "node:net";
import { createApiServer } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { createPrisma } from "@lastword/db";
import { Redis } from "ioredis";
import { serveRest } from "./serve-rest";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const prisma = createPrisma(env("DATABASE_URL"), { maxConnections: 5 });
const redis = new Redis(env("REDIS_URL"));
const dataPlane = new DataPlaneClient({ prisma, secret: env("BENCH_SECRET"), ownerWaitMs: 15_000 });
const server = createApiServer({
  prisma,
  redis,
  dataPlane,
  publicUrl: "http://localhost",
  authSecret: env("BENCH_AUTH_SECRET"),
  redisPrefix: env("BENCH_REDIS_PREFIX"),
});
const http = serveRest((req) => server.handleRest(req));
http.listen(0, "127.0.0.1", () => {
  console.log(JSON.stringify({ listening: (http.address() as AddressInfo).port }));
});
process.on("SIGTERM", () => {
  http.close();
  dataPlane.close();
  redis.disconnect();
  void prisma.$disconnect().then(() => process.exit(0));
});
