import { createPrisma, type PrismaClient } from "@lastword/db";
import { serverEnv } from "../env";

// One client per server process; kept on globalThis so `next dev` reloads do not leak pools.
const holder = globalThis as typeof globalThis & { __lastwordPrisma?: PrismaClient };

export function database(): PrismaClient {
  holder.__lastwordPrisma ??= createPrisma(serverEnv().DATABASE_URL);
  return holder.__lastwordPrisma;
}
