import { rmSync } from "node:fs";
import { eventually } from "@lastword/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, rest, startHarness, startHarnessWorker } from "./api-harness";
import type { WorkerProcess } from "./worker-process";

// A worker killed mid-pass never closes its CleanerRun row. The worker that claims the partition
// after the lease expired closes it as `abandoned`, and the cleaner-run list says so.
const LEASE_TTL_MS = 2_000;
let h: Harness;
const workers: WorkerProcess[] = [];
const dataDirs: string[] = [];
let key: string;

beforeAll(async () => {
  h = await startHarness("cleaner-abandoned");
  const tenant = await h.server.provisionTenant({
    name: "Ab",
    email: "ab@example.com",
    password: "ab-pass-1",
  });
  key = (await h.server.createApiKey({ ...tenant, name: "rw" })).key;
});

afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await h?.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

async function startWorker(): Promise<WorkerProcess> {
  const started = await startHarnessWorker(h, undefined, { leaseTtlMs: LEASE_TTL_MS });
  workers.push(started.worker);
  dataDirs.push(started.dataDir);
  return started.worker;
}

async function ownerOf(partitionId: string): Promise<string | null> {
  const row = await h.db.prisma.partition.findUniqueOrThrow({ where: { id: partitionId } });
  return row.ownerWorkerId;
}

type RunView = { id: string; status: string; finishedAt: string | null; error: string | null };

async function listedRuns(): Promise<RunView[]> {
  const res = await rest(h.server, { apiKey: key }, "GET", "/topics/table/cleaner-runs");
  expect(res.status).toBe(200);
  return res.body.runs as RunView[];
}

describe("cleaner runs of a killed worker", () => {
  it("are answered `abandoned` once another worker claims the partition; finished runs stay as they were", async () => {
    const a = await startWorker();
    const created = await rest(h.server, { apiKey: key }, "POST", "/topics", {
      name: "table",
      partitions: 1,
      configs: { "cleanup.policy": "compact" },
    });
    expect(created.status).toBe(201);
    const partition = await h.db.prisma.partition.findFirstOrThrow({ where: { topic: { name: "table" } } });
    await eventually("the first worker owns the partition", 10_000, async () =>
      (await ownerOf(partition.id)) === a.id ? true : undefined,
    );
    // The row a pass opens as it starts (CleanerRunRepository.start), of a pass the kill interrupts;
    // and one pass that finished before it.
    const running = await h.db.prisma.cleanerRun.create({
      data: { partitionId: partition.id, workerId: a.id, status: "running", startedAt: new Date() },
    });
    const finished = await h.db.prisma.cleanerRun.create({
      data: {
        partitionId: partition.id,
        workerId: a.id,
        status: "completed",
        startedAt: new Date(Date.now() - 60_000),
        finishedAt: new Date(Date.now() - 59_000),
        durationMs: 1_000,
      },
    });
    // While its worker holds the lease, the pass is running (renewals leave it alone).
    expect((await listedRuns()).find((r) => r.id === running.id)?.status).toBe("running");

    await a.kill();
    const b = await startWorker();
    await eventually(
      "the second worker claims the partition after the lease expired",
      4 * LEASE_TTL_MS + 5_000,
      async () => ((await ownerOf(partition.id)) === b.id ? true : undefined),
    );
    const runs = await listedRuns();
    const abandoned = runs.find((r) => r.id === running.id)!;
    expect(abandoned.status).toBe("abandoned");
    expect(abandoned.finishedAt).not.toBeNull();
    expect(abandoned.error).toContain(a.id);
    expect(runs.find((r) => r.id === finished.id)).toMatchObject({ status: "completed", error: null });
  });
});
