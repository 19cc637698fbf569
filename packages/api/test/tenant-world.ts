import { rmSync } from "node:fs";
import { usePerFile } from "@lastword/db/testing-hooks";
import { Kafka, type KafkaConfig, logLevel, type SASLOptions } from "kafkajs";
import { expect } from "vitest";
import type { Clock, Scope } from "../src/index";
import {
  type Harness,
  provisionTenantKey,
  rest,
  startHarness,
  startHarnessWorker,
  type TenantKey,
} from "./api-harness";
import type { WorkerProcess } from "./worker-process";

/** A topic a world creates before its tests run. */
export interface TopicSpec {
  name: string;
  partitions: number;
  configs: Record<string, string | number>;
}

export interface TenantWorldOptions {
  /** The clock the server reads (the worker stamps records with the real one). */
  clock?: Clock;
  /** The worker's scheduler tick (cleaner, erasure guard); without it nothing runs on its own. */
  tickMs?: number;
  /** Scopes of the world's key; omitted, the key has the default read/write scopes. */
  scopes?: Scope[];
  topics?: TopicSpec[];
  /** The worker keeps partitions in a filesystem object store (the manifest is committed). */
  objectStore?: boolean;
}

/**
 * A harness with a real worker process and one tenant holding one API key: what every records
 * suite starts from. The tenant's names are derived from `name`, so each file's world is distinct.
 */
export interface TenantWorld extends Harness, TenantKey {
  worker: WorkerProcess;
  dataDir: string;
}

/** Creates a topic over REST, as a tenant's key would, and fails the suite if it is refused. */
export async function createTopic(h: Harness, apiKey: string, topic: TopicSpec): Promise<void> {
  const created = await rest(h.server, { apiKey }, "POST", "/topics", topic);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

/** Another key of the world's tenant, with `scopes` (omitted: the default read/write scopes). */
export async function issueKey(world: TenantWorld, name: string, scopes?: Scope[]): Promise<string> {
  const { organizationId, userId } = world;
  return (await world.server.createApiKey({ organizationId, userId, name, ...(scopes ? { scopes } : {}) }))
    .key;
}

/** The world's worker's Kafka listener and the world's key as a SCRAM-SHA-512 login (as the console issues keys). */
export function kafkaLogin(world: TenantWorld): { brokers: string[]; sasl: SASLOptions } {
  return {
    brokers: [`${world.worker.kafka.host}:${world.worker.kafka.port}`],
    sasl: { mechanism: "scram-sha-512", username: world.keyId, password: world.key },
  };
}

/** A kafkajs client of the world's tenant, logging nothing; `config` adds to or overrides the rest. */
export function worldKafka(world: TenantWorld, clientId: string, config: Partial<KafkaConfig> = {}): Kafka {
  // kafkajs otherwise warns, on every producer, that its default partitioner changed in 2.0.
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = "1";
  return new Kafka({ ...kafkaLogin(world), clientId, logLevel: logLevel.NOTHING, ...config });
}

export async function startTenantWorld(name: string, options: TenantWorldOptions = {}): Promise<TenantWorld> {
  const h = await startHarness(name, options.clock ? { clock: options.clock } : {});
  const { worker, dataDir, objectsDir } = await startHarnessWorker(h, options.tickMs, {
    objectStore: options.objectStore ?? false,
  });
  const stop = async () => {
    await worker.stop();
    await h.close();
    for (const dir of [dataDir, objectsDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const tenant = await provisionTenantKey(h.server, `World ${name}`, options.scopes);
    for (const topic of options.topics ?? []) await createTopic(h, tenant.key, topic);
    return { ...h, ...tenant, worker, dataDir, close: stop };
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
  return usePerFile(
    () => startTenantWorld(name, options),
    (world) => world.close(),
  );
}
