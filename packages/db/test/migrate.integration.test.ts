import { createHash } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { listMigrations, migrate } from "../src/migrate";
import { useTestDatabase } from "../src/testing-hooks";

interface RuntimeField {
  name: string;
  kind: string;
  dbName?: string | null;
}
interface RuntimeModel {
  fields: RuntimeField[];
  dbName: string | null;
}

// The generated client carries its data model (the JSON its query compiler uses); comparing it with
// the migrated database catches a schema.prisma change without a migration, and the reverse.
function generatedModels(prisma: unknown): Map<string, string[]> {
  const models = (prisma as { _runtimeDataModel: { models: Record<string, RuntimeModel> } })._runtimeDataModel
    .models;
  return new Map(
    Object.entries(models).map(([name, model]) => [
      model.dbName ?? name,
      model.fields.filter((f) => f.kind !== "object").map((f) => f.dbName ?? f.name),
    ]),
  );
}

const db = useTestDatabase("lastword_test_migrate");

describe("migration runner", () => {
  it("records every migration in _prisma_migrations with Prisma's checksum", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const rows = await client.query(
      `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    await client.end();
    const files = listMigrations();
    expect(rows.rows.map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
    for (const [i, row] of rows.rows.entries()) {
      expect(row.checksum).toBe(createHash("sha256").update(files[i]!.sql).digest("hex"));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it("is idempotent: a second run applies nothing", async () => {
    expect(await migrate(db.url)).toEqual([]);
  });

  it("leaves a database whose tables and columns are exactly the generated client's models", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const result = await client.query(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    await client.end();
    const actual = new Map<string, string[]>();
    for (const row of result.rows) {
      actual.set(row.table_name, [...(actual.get(row.table_name) ?? []), row.column_name]);
    }
    const expected = generatedModels(db.prisma);
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [table, columns] of expected) {
      expect(actual.get(table)?.sort(), `columns of ${table}`).toEqual([...columns].sort());
    }
  });

  it("serves the generated client: every model can be queried with all its scalar fields", async () => {
    const delegates = db.prisma as unknown as Record<string, { findFirst: () => Promise<unknown> }>;
    for (const model of generatedModels(db.prisma).keys()) {
      const delegate = delegates[model.charAt(0).toLowerCase() + model.slice(1)];
      expect(delegate, `delegate for ${model}`).toBeDefined();
      await expect(delegate!.findFirst()).resolves.toBeNull();
    }
  });
});
