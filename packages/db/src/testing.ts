import { randomBytes } from "node:crypto";
import { createPrisma, type PrismaClient } from "./client";
import { dropDatabase, ensureDatabase, withDatabase } from "./database-admin";
import { readDbEnv } from "./env";
import { migrate } from "./migrate";

export interface TestDatabase {
  url: string;
  prisma: PrismaClient;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file, on the server of TEST_DATABASE_URL
 * (default: local Postgres). Tests never touch the demo database.
 */
export async function createTestDatabase(prefix = "lastword_test"): Promise<TestDatabase> {
  const server = readDbEnv().TEST_DATABASE_URL;
  const url = withDatabase(server, `${prefix}_${randomBytes(6).toString("hex")}`);
  await ensureDatabase(url);
  await migrate(url);
  const prisma = createPrisma(url, { maxConnections: 5 });
  return {
    url,
    prisma,
    async drop() {
      await prisma.$disconnect();
      await dropDatabase(url);
    },
  };
}

export { eventually } from "./eventually";
export { TcpProxy } from "./tcp-relay";
