import { defineConfig } from "vitest/config";

// One runner for the whole repo; the three projects differ in what they need running.
// unit: pure logic, no services. integration: real Postgres + Redis (own database and key prefix
// per file). e2e: real Chromium against the built app, started once by the global setup.
export default defineConfig({
  test: {
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
          include: ["{apps,packages}/*/{src,test}/**/*.integration.test.ts", "test/**/*.integration.test.ts"],
          exclude: ["**/node_modules/**"],
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
          fileParallelism: false,
        },
      },
    ],
  },
});
