import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export interface WorkerProcess {
  id: string;
  child: ChildProcess;
  /** Its Kafka listener as the "worker ready" line advertises it. */
  kafka: { host: string; port: number; nodeId: number };
}

export interface WorkerProcessOptions {
  databaseUrl: string;
  dataDir: string;
  secret: string;
  leaseTtlMs: number;
  /** Further settings (WORKER_SCHEDULING, WORKER_KAFKA_PORT, …). */
  env?: Record<string, string>;
  /** The child is added here at once, so the test's teardown kills it even if it never got ready. */
  track: ChildProcess[];
}

/**
 * The node arguments that run the worker: the bundle the integration project's global setup built
 * (LASTWORD_TEST_WORKER_BUNDLE, `worker-build.ts`), else its entry point through tsx, as
 * `npm start` runs it. Relative to the repository root.
 */
export function workerCommand(): string[] {
  const bundle = process.env.LASTWORD_TEST_WORKER_BUNDLE;
  return bundle ? [bundle] : ["--import", "tsx", "apps/worker/src/main.ts"];
}

/** Starts the worker (`workerCommand()`) as production runs it and resolves on its "worker ready" log line. */
export function spawnWorkerProcess(id: string, options: WorkerProcessOptions): Promise<WorkerProcess> {
  const child = spawn(process.execPath, workerCommand(), {
    cwd: repoRoot,
    env: {
      ...process.env,
      WORKER_ID: id,
      LOG_LEVEL: "info",
      DATABASE_URL: options.databaseUrl,
      LASTWORD_DATA_DIR: options.dataDir,
      LASTWORD_INTERNAL_SECRET: options.secret,
      WORKER_LEASE_TTL_MS: String(options.leaseTtlMs),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  options.track.push(child);
  // Passed on as it comes; the tail is kept for the sentence a worker that refused to start printed.
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderr = (stderr + chunk.toString()).slice(-4096);
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.startsWith("{")) return;
      const entry = JSON.parse(line) as { msg?: string; kafka?: WorkerProcess["kafka"] };
      if (entry.msg === "worker ready") resolve({ id, child, kafka: entry.kafka! });
    });
    child.once("close", (code) =>
      reject(new Error(`worker ${id} exited with ${code} before it was ready: ${stderr.trim()}`)),
    );
  });
}
