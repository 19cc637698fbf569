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

// Rows written while status was TEXT must come through the enum migration with their words, not
// reset to the column default (what the generated drop-and-add SQL would have done).
let server: TestDatabase;
let url: string;
let dir: string;

beforeAll(async () => {
  server = await createTestDatabase("lastword_test_enum_mig");
  url = withDatabase(server.url, `${databaseName(server.url)}_pre`);
  await ensureDatabase(url);
  dir = mkdtempSync(join(tmpdir(), "lastword-migrations-"));
  for (const { name } of listMigrations()) {
    if (ENUM_MIGRATION.test(name)) break;
    cpSync(join(MIGRATIONS_DIR, name), join(dir, name), { recursive: true });
  }
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (url) await dropDatabase(url);
  await server?.drop();
});

describe("erasure status enum migration", () => {
  it("converts existing request and tombstone statuses in place", async () => {
    await migrate(url, dir);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO "Organization"(id, name, slug, "createdAt") VALUES ('o', 'o', 'o', now())`,
      );
      await client.query(
        `INSERT INTO "ErasureRequest"(id, "organizationId", "subjectKey", "topicIds", status, "deadlineAt", "updatedAt")
         VALUES ('r1', 'o', '\\x01', '{}', 'at-risk', now(), now()), ('r2', 'o', '\\x01', '{}', 'tombstone-expired', now(), now())`,
      );
      await client.query(
        `INSERT INTO "ErasureTombstone"(id, "requestId", "organizationId", "topicId", "partitionId", "partitionIndex",
           "subjectKey", "offset", "writtenAt", "deadlineAt", status)
         VALUES ('t1', 'r1', 'o', 't', 'p', 0, 'AQ==', 5, now(), now(), 'purged'),
                ('t2', 'r2', 'o', 't', 'p', 0, 'AQ==', 6, now(), now(), 'tombstone-expired')`,
      );
    } finally {
      await client.end();
    }
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
});
