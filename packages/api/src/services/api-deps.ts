import type { DataPlane } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Redis } from "ioredis";
import type { Auth } from "../auth/auth";

// The business layer's dependencies, declared here so services never import a transport (tRPC,
// REST) to name them; the transports build them once per server and pass them in.

// The log store's Clock is the one clock type of every package (services, caches, worker timers).
export type { Clock } from "@lastword/logstore";

/** What every service may use; built once per server. */
export interface ApiDeps {
  prisma: PrismaClient;
  auth: Auth;
  dataPlane: DataPlane;
  redis: Redis;
  redisPrefix: string;
  clock: Clock;
  /** The console's public base URL: invitation links, and the origin its pages send (request-origin.ts). */
  publicUrl: string;
}
