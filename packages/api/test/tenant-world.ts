import { rmSync } from "node:fs";
import { expect } from "vitest";
import type { Scope } from "../src/index";
import { type Harness, rest, startHarness, startHarnessWorker, usePerFile } from "./api-harness";
import type { WorkerProcess } from "./worker-process";

/** A topic a world creates before its tests run. */
export interface TopicSpec {
  name: string;
  partitions: number;
  configs: Record<string, string | number>;
}

export interface TenantWorldOptions {
  /** The worker's scheduler tick (cleaner, erasure guard); without it nothing runs on its own. */
  tickMs?: number;
  /** Scopes of the world's key; omitted, the key has the default read/write scopes. */
  scopes?: Scope[];
  topics?: TopicSpec[];
}

/**
 * A harness with a real worker process and one tenant holding one API key: what every records
 * suite starts from. The tenant's names are derived from `name`, so each file's world is distinct.
 */
export interface TenantWorld extends Harness {
  worker: WorkerProcess;
  dataDir: string;
  organizationId: string;
  /** The tenant's owner. */
  userId: string;
  /** The tenant's API key (a bearer token). */
  key: string;
  /** The key's id: its SCRAM user name on the Kafka listener. */
  keyId: string;
  /** Owner credentials of the tenant, for sign-in tests. */
  email: string;
  password: string;
}

/** Creates a topic over REST, as a tenant's key would, and fails the suite if it is refused. */
export async function createTopic(h: Harness, apiKey: string, topic: TopicSpec): Promise<void> {
  const created = await rest(h.server, { apiKey }, "POST", "/topics", topic);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

/** Another key of the world's tenant, with `scopes`. */
export async function issueKey(world: TenantWorld, name: string, scopes: Scope[]): Promise<string> {
  const { organizationId, userId } = world;
  return (await world.server.createApiKey({ organizationId, userId, name, scopes })).key;
}

export async function startTenantWorld(name: string, options: TenantWorldOptions = {}): Promise<TenantWorld> {
  const h = await startHarness(name);
  const { worker, dataDir } = await startHarnessWorker(h, options.tickMs);
  const slug = name.replaceAll("_", "-");
  const email = `owner@${slug}.example`;
  const password = `${slug}-pass-1`;
  const stop = async () => {
    await worker.stop();
    await h.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const tenant = await h.server.provisionTenant({ name: `World ${name}`, email, password });
    const issued = await h.server.createApiKey({
      ...tenant,
      name: "world",
      ...(options.scopes ? { scopes: options.scopes } : {}),
    });
    for (const topic of options.topics ?? []) await createTopic(h, issued.key, topic);
    return {
      ...h,
      worker,
      dataDir,
      organizationId: tenant.organizationId,
      userId: tenant.userId,
      key: issued.key,
      keyId: issued.id,
      email,
      password,
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The file's world, started before its tests and closed after them. The object is filled in by
 * `beforeAll`, so read its fields inside hooks and tests, not at the top level of the file.
 */
export function useTenantWorld(name: string, options: TenantWorldOptions = {}): TenantWorld {
  return usePerFile(() => startTenantWorld(name, options));
}
