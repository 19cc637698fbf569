import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "../src/index";
import {
  anotherWebProcess,
  type Harness,
  PUBLIC_URL,
  provisionTenantKey,
  startHarness,
  startHarnessWorker,
  type TenantKey,
} from "./api-harness";
import type { WorkerProcess } from "./worker-process";

// Short leases, so the second machine takes the partition over soon after the first one dies.
const LEASE_TTL_MS = 2000;

let h: Harness;
let tenant: TenantKey;
let objectsDir: string;
const dataDirs: string[] = [];
const workers: WorkerProcess[] = [];

async function startMachine(): Promise<WorkerProcess> {
  const { worker, dataDir } = await startHarnessWorker(h, undefined, {
    objectsDir,
    leaseTtlMs: LEASE_TTL_MS,
  });
  dataDirs.push(dataDir);
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  h = await startHarness("sr_durability");
  objectsDir = mkdtempSync(join(tmpdir(), "lastword-sr-objects-"));
  tenant = await provisionTenantKey(h.server, "SR Durability");
});

afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await h?.close();
  for (const dir of [...dataDirs, objectsDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

async function sr(
  server: ApiServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await server.handleSchemaRegistry(
    new Request(`${PUBLIC_URL}/schema-registry${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: response.status, body: await response.json() };
}

const avro = (name: string, fields: string[]) =>
  JSON.stringify({
    type: "record",
    name,
    fields: fields.map((f) => ({ name: f, type: "string", default: "" })),
  });

async function everything(server: ApiServer): Promise<unknown> {
  return {
    schemas: (await sr(server, "GET", "/schemas?deleted=true")).body,
    config: (await sr(server, "GET", "/config/orders-value")).body,
  };
}

describe("the registry's topic survives a worker SIGKILL and the loss of its disk", () => {
  it("a new machine with an empty disk serves every schema, id and config, and the next id is new", async () => {
    await startMachine();
    for (const subject of ["orders-value", "users-value", "gone-value"]) {
      for (let v = 1; v <= 3; v++) {
        const answer = await sr(h.server, "POST", `/subjects/${subject}/versions`, {
          schema: avro(
            subject.split("-")[0]!,
            Array.from({ length: v }, (_, i) => `f${i}`),
          ),
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      }
    }
    await sr(h.server, "PUT", "/config/orders-value", { compatibility: "FULL" });
    await sr(h.server, "DELETE", "/subjects/gone-value");
    await sr(h.server, "DELETE", "/subjects/gone-value?permanent=true");
    const before = await everything(h.server);
    const lastId = Math.max(...(before as { schemas: { id: number }[] }).schemas.map((s) => s.id));

    await workers[0]!.kill();
    rmSync(dataDirs[0]!, { recursive: true, force: true });
    await startMachine();

    const cold = anotherWebProcess(h);
    expect(await everything(cold)).toEqual(before);
    // The permanently deleted subject's ids (7–9) are never handed out again.
    const next = await sr(cold, "POST", "/subjects/new-value/versions", { schema: avro("fresh", ["x"]) });
    expect(next.body).toEqual({ id: lastId + 4 });
    expect(await sr(h.server, "GET", "/subjects/new-value/versions/1")).toMatchObject({
      body: { id: lastId + 4 },
    });
    await cold.close(1000);
  });
});
