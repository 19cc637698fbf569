import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { useWorkerHarness, type WorkerHarness } from "./worker-harness";
import { spawnWorkerProcess, type WorkerProcess } from "./worker-process";

export interface Machines {
  /** The file's harness: database and client (its own data dir is not used by the machines). */
  readonly harness: WorkerHarness;
  /** The temp dir holding each machine's data dir (`<root>/<id>`) and the shared `<root>/objects`. */
  readonly root: string;
  /** Starts worker process `id` with a data dir of its own on the shared object store. */
  spawn(id: string, env?: Record<string, string>): Promise<WorkerProcess>;
}

/**
 * Worker processes as separate machines for one test file: each its own data directory, all the
 * same Postgres (the harness's) and one filesystem object store. Every process still running is
 * SIGKILLed and the temp dir removed after the file.
 */
export function useMachines(options: {
  name: string;
  secret: string;
  leaseTtlMs: number;
  env?: Record<string, string>;
}): Machines {
  // The client waits for a new owner across a lease expiry and the takeover's rebuild.
  const harness = useWorkerHarness({
    name: options.name,
    secret: options.secret,
    ownerWaitMs: 4 * options.leaseTtlMs,
  });
  const children: ChildProcess[] = [];
  let root = "";
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "lastword-machines-"));
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await rm(root, { recursive: true, force: true });
  });
  return {
    harness,
    get root() {
      return root;
    },
    spawn: (id, env = {}) =>
      spawnWorkerProcess(id, {
        databaseUrl: harness.db.url,
        dataDir: join(root, id),
        secret: options.secret,
        leaseTtlMs: options.leaseTtlMs,
        env: { LASTWORD_OBJECT_STORE: join(root, "objects"), ...options.env, ...env },
        track: children,
      }),
  };
}
