import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsObjectStore } from "@lastword/object-store";
import { afterAll, beforeAll } from "vitest";
import { ManifestRepository } from "../src/durability/manifest.repository";
import { OrphanSweeper } from "../src/durability/orphan-sweeper";
import { createLogger } from "../src/logger";
import type { RunningWorker, WorkerConfig } from "../src/worker";
import { eventually } from "./test-topics";
import { useWorkerHarness, type WorkerHarness } from "./worker-harness";
import { spawnWorkerProcess, type WorkerProcess } from "./worker-process";

/**
 * What every machines test reads besides the workers: the one filesystem object store the machines
 * share (`<root>/objects`) and the manifest rows that name its objects. One home for these reads so
 * the durability, tiering and machine-loss files check the bucket the same way.
 */
export interface SharedObjects {
  /** The file's harness: database and client (its own data dir is not used by the machines). */
  readonly harness: WorkerHarness;
  /** The temp dir holding each machine's data dir (`<root>/<id>`) and the shared `<root>/objects`. */
  readonly root: string;
  /** The keys in the shared store under `prefix`. */
  objectKeys(prefix: string): Promise<string[]>;
  /** A partition's manifest rows in offset order. */
  manifestRows(partitionId: string): ReturnType<WorkerHarness["db"]["prisma"]["partitionObject"]["findMany"]>;
  /** How many objects the manifest stopped naming are not deleted yet. */
  pendingSuperseded(partitionId: string): Promise<number>;
  /** One orphan-sweeper pass over the shared store with `graceMs`; answers how many objects it deleted. */
  sweep(graceMs: number): Promise<number>;
  /** Every record from `fromOffset` on, read through the client page by page: offset → value. */
  fetchAll(partitionId: string, fromOffset?: number): Promise<Map<number, string>>;
}

export interface Machines extends SharedObjects {
  /** Starts worker process `id` with a data dir of its own on the shared object store. */
  spawn(id: string, env?: Record<string, string>): Promise<WorkerProcess>;
  /** Resolves once worker `id` holds the partition's lease. */
  awaitOwner(id: string, partitionId: string, timeoutMs: number): Promise<void>;
  /** SIGTERMs the process and resolves once it exited. */
  stop(worker: WorkerProcess): Promise<void>;
}

export interface InProcessMachines extends SharedObjects {
  /**
   * Starts an in-process worker (id `<name>-<random>`) with data dir `<root>/<name>` on the shared
   * store; `options.objectTimings` are laid over the file's.
   */
  start(name: string, options?: Partial<WorkerConfig>): Promise<{ worker: RunningWorker; dataDir: string }>;
}

/**
 * The file's harness and a temp root made before its tests and removed after them. The client
 * waits for a new owner across a lease expiry and the takeover's rebuild. The secret only has to
 * be shared by the file's workers and client, so it is named for the file.
 */
function useSharedObjects(options: { name: string; leaseTtlMs: number; ownerWaitMs: number }): SharedObjects {
  const harness = useWorkerHarness({
    name: options.name,
    secret: `${options.name}-secret`,
    ownerWaitMs: options.ownerWaitMs,
  });
  let root = "";
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), `lastword-${options.name}-`));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const openStore = () => new FsObjectStore(join(root, "objects"));
  return {
    harness,
    get root() {
      return root;
    },
    async objectKeys(prefix) {
      const store = openStore();
      const keys: string[] = [];
      for await (const object of store.list(prefix)) keys.push(object.key);
      await store.close();
      return keys;
    },
    manifestRows: (partitionId) =>
      harness.db.prisma.partitionObject.findMany({ where: { partitionId }, orderBy: { baseOffset: "asc" } }),
    pendingSuperseded: (partitionId) =>
      harness.db.prisma.supersededObject.count({ where: { partitionId, deletedAt: null } }),
    async sweep(graceMs) {
      const store = openStore();
      const manifest = new ManifestRepository(harness.db.url, "sweep-test");
      try {
        const logger = createLogger("sweep-test", "silent");
        return await new OrphanSweeper({ store, manifest, logger, graceMs }).sweep();
      } finally {
        await Promise.all([store.close(), manifest.close()]);
      }
    },
    async fetchAll(partitionId, fromOffset = 0) {
      const stored = new Map<number, string>();
      for (let offset = fromOffset; ; ) {
        const page = await harness.client.fetch({ partitionId, offset, limit: 10_000, maxBytes: 32 << 20 });
        for (const r of page.records) stored.set(r.offset, r.value?.toString() ?? "");
        if (page.records.length === 0 || page.nextOffset >= page.logEndOffset) break;
        offset = page.nextOffset;
      }
      return stored;
    },
  };
}

/**
 * Worker processes as separate machines for one test file: each its own data directory, all the
 * same Postgres (the harness's) and one filesystem object store. Every process still running is
 * SIGKILLed and the temp dir removed after the file.
 */
export function useMachines(options: {
  name: string;
  leaseTtlMs: number;
  env?: Record<string, string>;
}): Machines {
  const shared = useSharedObjects({ ...options, ownerWaitMs: 4 * options.leaseTtlMs });
  const { harness } = shared;
  const children: ChildProcess[] = [];
  // Registered after the root's hook, so (after hooks run in reverse) every process is dead before
  // its data dir is removed.
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  });
  return Object.assign(shared, {
    spawn: (id: string, env: Record<string, string> = {}) =>
      spawnWorkerProcess(id, {
        databaseUrl: harness.db.url,
        dataDir: join(shared.root, id),
        secret: harness.secret,
        leaseTtlMs: options.leaseTtlMs,
        env: { LASTWORD_OBJECT_STORE: join(shared.root, "objects"), ...options.env, ...env },
        track: children,
      }),
    async awaitOwner(id: string, partitionId: string, timeoutMs: number) {
      await eventually(`${id} owns the partition`, timeoutMs, async () => {
        const row = await harness.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
        return row.ownerWorkerId === id ? true : undefined;
      });
    },
    async stop(worker: WorkerProcess) {
      const exited = new Promise((resolve) => worker.child.once("exit", resolve));
      worker.child.kill("SIGTERM");
      await exited;
    },
  });
}

/**
 * Timings under which a tiering test sees every step soon: commits every 10 ms, each partition
 * synced every 50 ms (consolidated at once), replaced objects deleted at once.
 */
export const EAGER_TIERING: NonNullable<WorkerConfig["objectTimings"]> = {
  commitWindowMs: 10,
  tiering: { consolidateAfterMs: 0, intervalMs: 50, fullScanMs: 200 },
  superseded: { graceMs: 0, intervalMs: 100 },
};

/**
 * In-process workers as separate machines for one test file: each its own data directory, one
 * filesystem object store, the file's lease TTL and `objectTimings`.
 */
export function useInProcessMachines(options: {
  name: string;
  leaseTtlMs: number;
  objectTimings: NonNullable<WorkerConfig["objectTimings"]>;
}): InProcessMachines {
  const shared = useSharedObjects({ ...options, ownerWaitMs: 8 * options.leaseTtlMs });
  return Object.assign(shared, {
    async start(name: string, overrides: Partial<WorkerConfig> = {}) {
      const dataDir = join(shared.root, name);
      const worker = await shared.harness.startWorker({
        workerId: `${name}-${Math.random().toString(36).slice(2, 8)}`,
        dataDir,
        objectStore: new FsObjectStore(join(shared.root, "objects")),
        leaseTtlMs: options.leaseTtlMs,
        ...overrides,
        objectTimings: { ...options.objectTimings, ...overrides.objectTimings },
      });
      return { worker, dataDir };
    },
  });
}
