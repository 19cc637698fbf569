import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DataPlaneClient } from "@lastword/dataplane";
import { createTestDatabase, type TestDatabase } from "@lastword/db/testing";
import { usePerFile } from "@lastword/db/testing-hooks";
import { partitionLogOpener } from "../src/hosting/log-opener";
import { type RunningWorker, type SchedulingConfig, startWorker, type WorkerConfig } from "../src/worker";
import { spawnWorkerProcess, type WorkerProcess } from "./worker-process";

/**
 * What a worker integration test file runs on: a fresh database, a data directory, a data-plane
 * client, and the in-process workers it starts there. close() takes all of it down again.
 */
export interface WorkerHarness {
  db: TestDatabase;
  dataDir: string;
  /** The internal secret its workers and client share (the data plane's x-lastword-secret). */
  secret: string;
  client: DataPlaneClient;
  /**
   * Starts a worker on the harness's database (or `databaseUrl`, e.g. through a relay) and data
   * dir, logging nothing; `overrides` are the test's own settings.
   */
  startWorker(overrides?: Partial<WorkerConfig>): Promise<RunningWorker>;
  /** Stops every worker started here that was neither stopped nor killed since. */
  stopWorkers(): Promise<void>;
  /**
   * Starts a worker as its own process (main.ts, as production runs it) on the harness's database,
   * data dir and secret, with `env`'s further settings (WORKER_SCHEDULING, WORKER_KAFKA_PORT, …).
   */
  spawnWorker(
    id: string,
    options: { leaseTtlMs: number; env?: Record<string, string> },
  ): Promise<WorkerProcess>;
  /**
   * SIGKILLs the spawned workers still running, closes the client, stops the in-process workers,
   * drops the database and removes the data dir, in that order.
   */
  close(): Promise<void>;
}

/**
 * `name` ("cleaner", "pg-outage") names the database (lastword_test_<name>_<random>) and the data
 * dir; `secret` is a random one unless given; `ownerWaitMs` is how long the client waits for a
 * partition's owner (a takeover test wants more than the default 5 s).
 */
export async function openWorkerHarness(options: {
  name: string;
  secret?: string;
  ownerWaitMs?: number;
}): Promise<WorkerHarness> {
  const { name, secret = randomBytes(16).toString("hex") } = options;
  const db = await createTestDatabase(`lastword_test_${name.replaceAll("-", "_")}`);
  const dataDir = await mkdtemp(join(tmpdir(), `lastword-${name}-`));
  const client = new DataPlaneClient({
    prisma: db.prisma,
    secret,
    ownerWaitMs: options.ownerWaitMs ?? 5_000,
  });
  const live = new Set<RunningWorker>();

  async function start(overrides: Partial<WorkerConfig> = {}): Promise<RunningWorker> {
    const base = { databaseUrl: db.url, dataDir, secret, openLog: partitionLogOpener() };
    const worker = await startWorker({ ...base, logLevel: "silent", ...overrides });
    // A worker the test stopped or killed is not stopped again: a stop after kill() would release
    // the leases the test left to expire.
    const tracked: RunningWorker = {
      ...worker,
      stop: () => {
        live.delete(tracked);
        return worker.stop();
      },
      kill: () => {
        live.delete(tracked);
        return worker.kill();
      },
    };
    live.add(tracked);
    return tracked;
  }

  async function stopWorkers(): Promise<void> {
    await Promise.all([...live].map((worker) => worker.stop()));
  }

  // Added as each spawns, so close() kills a process that never got ready too.
  const children: ChildProcess[] = [];
  const spawnWorker: WorkerHarness["spawnWorker"] = (id, { leaseTtlMs, env }) =>
    spawnWorkerProcess(id, {
      databaseUrl: db.url,
      dataDir,
      secret,
      leaseTtlMs,
      ...(env ? { env } : {}),
      track: children,
    });

  return {
    db,
    dataDir,
    secret,
    client,
    startWorker: start,
    stopWorkers,
    spawnWorker,
    async close() {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
      client.close();
      await stopWorkers();
      await db.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The file's harness: opened in `beforeAll`, closed in `afterAll`. The object is empty until then
 * (the harness's fields are copied in), so read it inside hooks and tests.
 */
export function useWorkerHarness(options: Parameters<typeof openWorkerHarness>[0]): WorkerHarness {
  return usePerFile(
    () => openWorkerHarness(options),
    (harness) => harness.close(),
  );
}

/** Cleaner scheduling on the shared Redis (or `redisUrl`) under a key prefix of this file's own. */
export function testScheduling(
  options: Omit<SchedulingConfig, "redisUrl" | "redisPrefix"> & { redisUrl?: string },
): SchedulingConfig {
  const { redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379", ...timing } = options;
  return { redisUrl, redisPrefix: `lastword-test-${randomBytes(4).toString("hex")}`, ...timing };
}
