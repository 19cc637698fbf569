import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { createPrisma, type PrismaClient } from "./client";
import { databaseName, dropDatabase, ensureDatabase, withDatabase } from "./database-admin";
import { readDbEnv } from "./env";
import { listMigrations, migrate } from "./migrate";

export interface TestDatabase {
  url: string;
  prisma: PrismaClient;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file, on the server of TEST_DATABASE_URL
 * (default: local Postgres). Tests never touch the demo database.
 *
 * It is a copy (`CREATE DATABASE … TEMPLATE`) of a database migrated once per set of migration
 * files, not migrated afresh: the same tables and `_prisma_migrations` rows, in a fraction of the
 * time, so files running side by side do not each replay every migration.
 */
export async function createTestDatabase(prefix = "lastword_test"): Promise<TestDatabase> {
  const server = readDbEnv().TEST_DATABASE_URL;
  const url = withDatabase(server, `${prefix}_${randomBytes(6).toString("hex")}`);
  await cloneMigrated(server, databaseName(url));
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

/**
 * The template's name carries a hash of the migration files, so an edited or added migration gets
 * a template of its own and worktrees on the same migrations share one. Outside the
 * `lastword_test_%` names that CI drops before a run, so a run in another checkout never drops it
 * from under this one.
 */
export function templateDatabaseName(): string {
  const hash = createHash("sha256");
  for (const migration of listMigrations()) hash.update(`${migration.name}\0${migration.checksum}\0`);
  return `lastword_template_${hash.digest("hex").slice(0, 16)}`;
}

async function cloneMigrated(server: string, name: string): Promise<void> {
  const template = templateDatabaseName();
  for (let attempt = 0; ; attempt++) {
    try {
      await createFrom(server, name, template);
      return;
    } catch (error) {
      // 3D000: no such template yet (or someone dropped it): build it, then copy again.
      if ((error as { code?: string }).code !== "3D000" || attempt > 0) throw error;
      await buildTemplate(server, template);
    }
  }
}

/**
 * Migrates a database under a private name and publishes it by renaming it to the template's.
 * CREATE DATABASE … TEMPLATE fails while anyone is connected to the template, so nothing ever
 * connects to it under its published name: the migration's connection is closed before the
 * rename, and copies do not connect to their source. Two files that build it at once both
 * migrate; the rename of the second fails (42P04) and its copy is dropped.
 */
async function buildTemplate(server: string, template: string): Promise<void> {
  const building = withDatabase(server, `${template}_${randomBytes(4).toString("hex")}`);
  await ensureDatabase(building);
  try {
    await migrate(building);
    await admin(server, (client) =>
      client.query(
        `ALTER DATABASE ${pg.escapeIdentifier(databaseName(building))} RENAME TO ${pg.escapeIdentifier(template)}`,
      ),
    );
  } catch (error) {
    await dropDatabase(building);
    if ((error as { code?: string }).code !== "42P04") throw error;
  }
}

async function createFrom(server: string, name: string, template: string): Promise<void> {
  await admin(server, (client) =>
    client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`),
  );
}

async function admin<T>(server: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(server, "postgres") });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export { eventually } from "./eventually";
export { TcpProxy } from "./tcp-relay";
