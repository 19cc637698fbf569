import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "./testing";

/**
 * The file's own database (`createTestDatabase(prefix)`): created in `beforeAll`, dropped in
 * `afterAll`. The object is empty until then (its fields are copied in), so read it inside hooks
 * and tests. Kept apart from `./testing`, which benchmarks import outside Vitest.
 */
export function useTestDatabase(prefix: string): TestDatabase {
  const db = {} as TestDatabase;
  beforeAll(async () => {
    Object.assign(db, await createTestDatabase(prefix));
  });
  afterAll(async () => {
    await db.drop?.();
  });
  return db;
}
