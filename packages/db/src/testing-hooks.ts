import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "./testing";

// Kept apart from `./testing`, which benchmarks import outside Vitest.

/**
 * What `start` makes, for the file's tests: started in `beforeAll`, closed in `afterAll`. The
 * returned object is empty until then (its fields are copied in), so tests read it inside hooks
 * and tests, not at the top level of the file.
 */
export function usePerFile<T extends object>(start: () => Promise<T>, close: (made: T) => Promise<void>): T {
  const made = {} as T;
  let started = false;
  beforeAll(async () => {
    Object.assign(made, await start());
    started = true;
  });
  afterAll(async () => {
    if (started) await close(made);
  });
  return made;
}

/** The file's own database (`createTestDatabase(prefix)`), dropped after its tests. */
export function useTestDatabase(prefix: string): TestDatabase {
  return usePerFile(
    () => createTestDatabase(prefix),
    (db) => db.drop(),
  );
}
