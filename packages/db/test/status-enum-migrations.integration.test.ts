import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseErasureRow, storedTombstoneStatus } from "@lastword/erasure";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrisma } from "../src/client";
import { databaseName, dropDatabase, ensureDatabase, withDatabase } from "../src/database-admin";
import { listMigrations, MIGRATIONS_DIR, migrate } from "../src/migrate";
import { createTestDatabase, type TestDatabase } from "../src/testing";

const ENUM_MIGRATION = /_erasure_status_enum$/;
const CLEANER_ENUM_MIGRATION = /_cleaner_run_status_enum$/;

// Rows written while a status was TEXT must come through its enum migration with their words, not
// reset to the column default or dropped (what the generated drop-and-add SQL would have done).
let server: TestDatabase;
const made: { url: string; dir: string }[] = [];

/** A database migrated up to (not including) the first migration matching `pattern`, and that folder set. */
async function databaseBefore(pattern: RegExp, suffix: string): Promise<{ url: string; dir: string }> {
  const url = withDatabase(server.url, `${databaseName(server.url)}_${suffix}`);
  await ensureDatabase(url);
  const dir = mkdtempSync(join(tmpdir(), "lastword-migrations-"));
  made.push({ url, dir });
  for (const { name } of listMigrations()) {
    if (pattern.test(name)) break;
    cpSync(join(MIGRATIONS_DIR, name), join(dir, name), { recursive: true });
  }
  await migrate(url, dir);
  return { url, dir };
}

async function sql(url: string, statements: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  server = await createTestDatabase("lastword_test_enum_mig");
});
afterAll(async () => {
  for (const { url, dir } of made) {
    rmSync(dir, { recursive: true, force: true });
    await dropDatabase(url);
  }
  await server?.drop();
});

describe("status enum migrations", () => {
  it("converts existing request and tombstone statuses in place", async () => {
    const { url } = await databaseBefore(ENUM_MIGRATION, "pre");
    await sql(url, [
      `INSERT INTO "Organization"(id, name, slug, "createdAt") VALUES ('o', 'o', 'o', now())`,
      `INSERT INTO "ErasureRequest"(id, "organizationId", "subjectKey", "topicIds", status, "deadlineAt", "updatedAt")
         VALUES ('r1', 'o', '\\x01', '{}', 'at-risk', now(), now()), ('r2', 'o', '\\x01', '{}', 'tombstone-expired', now(), now())`,
      `INSERT INTO "ErasureTombstone"(id, "requestId", "organizationId", "topicId", "partitionId", "partitionIndex",
           "subjectKey", "offset", "writtenAt", "deadlineAt", status)
         VALUES ('t1', 'r1', 'o', 't', 'p', 0, 'AQ==', 5, now(), now(), 'purged'),
                ('t2', 'r2', 'o', 't', 'p', 0, 'AQ==', 6, now(), now(), 'tombstone-expired')`,
    ]);
    const applied = await migrate(url);
    expect(applied.some((name) => ENUM_MIGRATION.test(name))).toBe(true);
    const prisma = createPrisma(url, { maxConnections: 1 });
    try {
      const requests = await prisma.erasureRequest.findMany({ orderBy: { id: "asc" } });
      expect(requests.map((r) => parseErasureRow(r).status)).toEqual(["at-risk", "tombstone-expired"]);
      const tombstones = await prisma.erasureTombstone.findMany({ orderBy: { id: "asc" } });
      expect(tombstones.map((t) => storedTombstoneStatus(t.status))).toEqual(["purged", "tombstone-expired"]);
      const fresh = await prisma.erasureRequest.create({
        data: { organizationId: "o", subjectKey: new Uint8Array([1]), deadlineAt: new Date() },
      });
      expect(parseErasureRow(fresh).status).toBe("received");
    } finally {
      await prisma.$disconnect();
    }
  });

  it("converts existing cleaner run statuses in place and refuses a word it does not know", async () => {
    const { url } = await databaseBefore(CLEANER_ENUM_MIGRATION, "cleaner_pre");
    const words = ["running", "completed", "skipped", "aborted", "failed", "abandoned"];
    await sql(url, [
      `INSERT INTO "Organization"(id, name, slug, "createdAt") VALUES ('o', 'o', 'o', now())`,
      `INSERT INTO "Topic"(id, "organizationId", name, "partitionCount", "updatedAt") VALUES ('t', 'o', 't', 1, now())`,
      `INSERT INTO "Partition"(id, "topicId", index) VALUES ('p', 't', 0)`,
      `INSERT INTO "CleanerRun"(id, "partitionId", status) VALUES ${words.map((w, i) => `('c${i}', 'p', '${w}')`).join(", ")}`,
    ]);
    expect((await migrate(url)).some((name) => CLEANER_ENUM_MIGRATION.test(name))).toBe(true);
    const prisma = createPrisma(url, { maxConnections: 1 });
    try {
      const runs = await prisma.cleanerRun.findMany({ orderBy: { id: "asc" } });
      expect(runs.map((r) => r.status)).toEqual(words);
    } finally {
      await prisma.$disconnect();
    }

    const { url: stray } = await databaseBefore(CLEANER_ENUM_MIGRATION, "cleaner_stray");
    await sql(stray, [
      `INSERT INTO "Organization"(id, name, slug, "createdAt") VALUES ('o', 'o', 'o', now())`,
      `INSERT INTO "Topic"(id, "organizationId", name, "partitionCount", "updatedAt") VALUES ('t', 'o', 't', 1, now())`,
      `INSERT INTO "Partition"(id, "topicId", index) VALUES ('p', 't', 0)`,
      `INSERT INTO "CleanerRun"(id, "partitionId", status) VALUES ('c', 'p', 'finished')`,
    ]);
    await expect(migrate(stray)).rejects.toThrow(/CleanerRunStatus/);
  });
});
