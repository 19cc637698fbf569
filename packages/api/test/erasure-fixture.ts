import { rmSync } from "node:fs";
import { type Harness, startHarness, startHarnessWorker } from "./api-harness";
import type { WorkerProcess } from "./worker-process";

export { CLOSED_AT_RISK_TIMELINE, CLOSED_REQUEST_TIMELINE } from "@lastword/erasure/testing";

/** The erasure suites' world: a harness, a scheduling worker, one tenant with admin and DPO keys. */
export interface ErasureFixture {
  h: Harness;
  worker: WorkerProcess;
  organizationId: string;
  admin: string;
  compliance: string;
  close(): Promise<void>;
}

/** One tenant with an admin key and a DPO key (the compliance role's scopes). */
export async function provisionErasureTenant(h: Harness, name: string) {
  const tenant = await h.server.provisionTenant({
    name: `Erasure ${name}`,
    email: `dpo@${name.replaceAll("_", "-")}.example`,
    password: "erasure-pass-1",
  });
  const admin = (await h.server.createApiKey({ ...tenant, name: "admin", scopes: ["admin"] })).key;
  const compliance = (
    await h.server.createApiKey({
      ...tenant,
      name: "dpo",
      scopes: ["topics:read", "groups:read", "erasure:read", "erasure:write"],
    })
  ).key;
  return { organizationId: tenant.organizationId, admin, compliance };
}

/** A worker that ticks every `tickMs` (the guard and request progress run on that tick). */
export async function startErasureFixture(name: string, tickMs: number): Promise<ErasureFixture> {
  const h = await startHarness(name);
  const { worker, dataDir } = await startHarnessWorker(h, tickMs);
  return {
    h,
    worker,
    ...(await provisionErasureTenant(h, name)),
    async close() {
      await worker.stop();
      await h.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
