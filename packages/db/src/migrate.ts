import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

// Not `new URL(dir, import.meta.url)`: bundlers (Next/Turbopack) treat that as an asset import and fail.
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../prisma/migrations");

// Prisma serialises `migrate deploy` runs with this advisory lock id; we take the same one so a
// Prisma CLI and this runner never apply migrations at the same time.
const PRISMA_ADVISORY_LOCK_ID = 72707369;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  /** SHA-256 of the file, hex: what Prisma stores in `_prisma_migrations.checksum`. */
  checksum: string;
}

export function listMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  // The web app bundles this package but never migrates; keep Next from tracing the whole repo.
  return readdirSync(/*turbopackIgnore: true*/ dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

/**
 * Applies pending migrations in order, each in its own transaction, recording them in
 * `_prisma_migrations` exactly as `prisma migrate deploy` would. Returns the names applied.
 */
export async function migrate(databaseUrl: string, dir = MIGRATIONS_DIR): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_ADVISORY_LOCK_ID]);
    await client.query(CREATE_TABLE);
    const applied = await appliedMigrations(client);
    const done: string[] = [];
    for (const migration of listMigrations(dir)) {
      const previous = applied.get(migration.name);
      if (previous !== undefined) {
        if (previous !== migration.checksum) {
          throw new MigrationError(`migration ${migration.name} was edited after it was applied`);
        }
        continue;
      }
      await applyOne(client, migration);
      done.push(migration.name);
    }
    return done;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_ADVISORY_LOCK_ID]).catch(() => {});
    await client.end();
  }
}

async function appliedMigrations(client: pg.Client): Promise<Map<string, string>> {
  const failed = await client.query(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NULL AND rolled_back_at IS NULL`,
  );
  if (failed.rowCount) {
    throw new MigrationError(`migration ${failed.rows[0].migration_name} failed earlier; resolve it first`);
  }
  const rows = await client.query(
    `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
  );
  return new Map(rows.rows.map((row) => [row.migration_name as string, row.checksum as string]));
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), 0)`,
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`);
  }
}
