import { defineConfig } from "vitest/config";

// One runner for the whole repo; the projects differ in what they need running.
// unit: pure logic, no services. integration: real Postgres + Redis (own database and key prefix
// per file). e2e: real Chromium against the built app, started once by the global setup.
//
// unit and integration files run side by side (maxWorkers below, on a 2-core machine: most of an
// integration file's time is spent waiting on Postgres, Redis, child processes and lease expiry,
// not on the CPU). Nothing they use is shared: each integration file has its own database (a copy
// of a template migrated once), Redis prefix, temporary directories and free ports. The files in
// SERIAL cannot share the machine and run after them, one at a time; e2e (one app and one
// database for all its specs) runs last, on its own.

const INTEGRATION = [
  "{apps,packages}/*/{src,test}/**/*.integration.test.ts",
  "test/**/*.integration.test.ts",
];

/**
 * Integration files that run alone, each with the reason: worker processes on a 1.5 s lease that
 * race a fault point or a throughput floor, which the CPU taken by files beside them decides.
 */
const SERIAL = [
  // Kills workers at tiering fault points while produces are in flight; beside other files a
  // worker lost its lease before its fault point, or died with an unanswered produce durable.
  "apps/worker/test/tiering-crash*.integration.test.ts",
  // Produces 200 records per partition through two worker processes within its window before the kill.
  "apps/worker/test/machine-loss.integration.test.ts",
];

export default defineConfig({
  test: {
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: "unit",
          include: ["{apps,packages}/*/{src,test}/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["**/*.integration.test.ts", "**/node_modules/**"],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: "integration",
          include: INTEGRATION,
          exclude: ["**/node_modules/**", ...SERIAL],
          // The worker bundled once for the files that start it as a process.
          globalSetup: ["apps/worker/test/worker-build.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "integration-serial",
          include: SERIAL.length > 0 ? SERIAL : ["no-serial-files"],
          exclude: ["**/node_modules/**"],
          globalSetup: ["apps/worker/test/worker-build.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["e2e/**/*.spec.ts"],
          globalSetup: ["e2e/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // After the other projects, two specs at a time: a spec mostly waits (on the page, the
          // console's refresh, the worker's tick), so one at a time left the 2-core machine half
          // idle for ten minutes. Each spec signs up its own accounts and names its own topics in
          // them; the app, worker and database are shared.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
