import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

// The api reaches workers only through the data-plane protocol, so its tests run the real worker
// the way production does: a process of its own, started from the app's entry point. The api
// never imports the worker (an app); it talks to it as it talks to Postgres and Redis.
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const WORKER_ENTRY = "apps/worker/src/main.ts";

export interface WorkerProcess {
  id: string;
  /** Its Kafka listener as its "worker ready" line advertises it (every worker process listens). */
  kafka: { host: string; port: number; nodeId: number };
  /** SIGTERM: the worker's graceful stop (releases its leases); resolves once it has exited. */
  stop(): Promise<void>;
  /** SIGKILL: as if the process died; its leases are left to expire. */
  kill(): Promise<void>;
}

export interface WorkerProcessOptions {
  databaseUrl: string;
  dataDir: string;
  secret: string;
  redisUrl: string;
  redisPrefix: string;
  /** Schedules cleaner, retention and erasure work on this tick; without it, no scheduling. */
  tickMs?: number;
  leaseTtlMs?: number;
  /** LASTWORD_OBJECT_STORE: partitions kept in object storage (a directory: the filesystem store). */
  objectStore?: string;
  /** Further settings (the worker's env.ts names). */
  env?: Record<string, string>;
}

/**
 * The node arguments that run the worker: the bundle the integration project's global setup built
 * (LASTWORD_TEST_WORKER_BUNDLE, `apps/worker/test/worker-build.ts`), else its entry point through
 * tsx, as `npm start` runs it. Relative to the repository root.
 */
export function workerCommand(): string[] {
  const bundle = process.env.LASTWORD_TEST_WORKER_BUNDLE;
  return bundle ? [bundle] : ["--import", "tsx", WORKER_ENTRY];
}

/** Starts the worker (`workerCommand()`) and resolves on its "worker ready" log line. */
export function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const id = `worker-${randomBytes(5).toString("hex")}`;
  const child = spawn(process.execPath, workerCommand(), {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      LASTWORD_DATA_DIR: options.dataDir,
      LASTWORD_INTERNAL_SECRET: options.secret,
      REDIS_URL: options.redisUrl,
      REDIS_PREFIX: options.redisPrefix,
      WORKER_ID: id,
      // "worker ready" is an info line; the rest of the log is read and dropped.
      LOG_LEVEL: "info",
      ...(options.tickMs === undefined
        ? { WORKER_SCHEDULING: "off" }
        : { WORKER_SCHEDULING: "on", WORKER_SCHEDULER_TICK_MS: String(options.tickMs) }),
      ...(options.leaseTtlMs === undefined ? {} : { WORKER_LEASE_TTL_MS: String(options.leaseTtlMs) }),
      ...(options.objectStore === undefined ? {} : { LASTWORD_OBJECT_STORE: options.objectStore }),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.includes('"msg":"worker ready"')) {
        const { kafka } = JSON.parse(line) as { kafka: WorkerProcess["kafka"] };
        resolve({ id, kafka, stop: () => end("SIGTERM"), kill: () => end("SIGKILL") });
      }
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`worker ${id} exited (${code ?? signal}) before it was ready`)),
    );
  });
}
