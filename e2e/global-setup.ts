import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "@lastword/db/testing";
import { Redis } from "ioredis";
import type { TestProject } from "vitest/node";
import {
  freePort,
  type Service,
  startService,
  stopService,
  tailOf,
  waitForHttp,
  waitForOutput,
} from "./services";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    dataDir: string;
    artifactsDir: string;
  }
}

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const webDir = join(repoRoot, "apps/web");
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const START_TIMEOUT_MS = 60_000;

/**
 * Starts the built web app and one worker against a fresh database, Redis prefix and data dir,
 * and returns the teardown that removes all of it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(join(webDir, ".next/BUILD_ID"))) {
    throw new Error("apps/web has no production build: run `npm run build` first (`npm test` does it).");
  }
  const database = await createTestDatabase("lastword_e2e");
  const redisPrefix = `lastword-e2e-${randomBytes(4).toString("hex")}`;
  const workDir = await mkdtemp(join(tmpdir(), "lastword-e2e-"));
  const dataDir = join(workDir, "data");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: database.url,
    REDIS_URL,
    REDIS_PREFIX: redisPrefix,
    LASTWORD_DATA_DIR: dataDir,
    LASTWORD_INTERNAL_SECRET: randomBytes(24).toString("hex"),
    BETTER_AUTH_SECRET: randomBytes(32).toString("hex"),
    PUBLIC_URL: baseUrl,
    PORT: String(port),
    LOG_LEVEL: "info",
  };
  const services: Service[] = [];
  const teardown = async () => {
    await Promise.all(services.map((service) => stopService(service)));
    await database.drop();
    await deleteRedisKeys(redisPrefix);
    await rm(workDir, { recursive: true, force: true });
  };

  try {
    const worker = startService("worker", process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
      cwd: repoRoot,
      // A new group's first rebalance at once, as the integration tests' workers do: the 3 s
      // Kafka waits there for more members only delays each spec's kafkajs consumer.
      env: { ...env, WORKER_ID: "e2e-worker-1", WORKER_KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: "0" },
      logDir: workDir,
    });
    services.push(worker);
    // The web's own server (apps/web/server.mjs, what `npm start` runs): Next behind the peer
    // stamp the sign-in and sign-up limits key on. It listens on PORT.
    const web = startService("web", process.execPath, [join(webDir, "server.mjs")], {
      cwd: webDir,
      env,
      logDir: workDir,
    });
    services.push(web);
    await Promise.all([
      waitForOutput(worker, "worker ready", START_TIMEOUT_MS).catch(withLog(worker)),
      waitForHttp(web, `${baseUrl}/api/health`, START_TIMEOUT_MS).catch(withLog(web)),
    ]);
  } catch (error) {
    await teardown();
    throw error;
  }

  project.provide("baseUrl", baseUrl);
  project.provide("databaseUrl", database.url);
  project.provide("dataDir", dataDir);
  project.provide("artifactsDir", join(repoRoot, "test-artifacts"));
  return teardown;
}

function withLog(service: Service) {
  return async (error: unknown): Promise<never> => {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- last lines of ${service.name} ---\n${await tailOf(service)}`);
  };
}

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
