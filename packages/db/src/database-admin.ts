import pg from "pg";

/** The URL of `databaseUrl`'s server with another database name. */
export function withDatabase(databaseUrl: string, database: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export function databaseName(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
}

/** Creates the database named in `databaseUrl` if it does not exist (connecting to `postgres`). */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseName(databaseUrl);
  const admin = new pg.Client({ connectionString: withDatabase(databaseUrl, "postgres") });
  await admin.connect();
  try {
    const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount) return false;
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    return true;
  } finally {
    await admin.end();
  }
}

export async function dropDatabase(databaseUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDatabase(databaseUrl, "postgres") });
  await admin.connect();
  try {
    await admin.query(
      `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(databaseName(databaseUrl))} WITH (FORCE)`,
    );
  } finally {
    await admin.end();
  }
}
