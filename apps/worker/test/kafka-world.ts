import type { Scope } from "@lastword/api/key-auth";
import { usePerFile } from "@lastword/db/testing-hooks";
import { beforeAll } from "vitest";
import type { RunningWorker } from "../src/worker";
import { CLIENT_SCOPES, createKafkaKey, createNamedTopic, startKafkaWorker } from "./kafka-client";
import { openControlPlane, type TestControlPlane } from "./rest-call";
import { openWorkerHarness, useWorkerHarness, type WorkerHarness } from "./worker-harness";

/** An API key as a Kafka client logs in with it: the key id is the user name, its secret the password. */
export type KafkaKey = { id: string; secret: string };

/** What a Kafka test file runs on: its harness, one worker serving Kafka, and a key of the tenant. */
export interface KafkaWorld {
  h: WorkerHarness;
  worker: RunningWorker;
  /** The worker's Kafka listener, as clients dial it (`host:port`). */
  bootstrap: string;
  /** A key of `org` with `scopes`. */
  key: KafkaKey;
  /** The partition ids of each of `org`'s `topics`, by topic name, in partition order. */
  topicIds: Record<string, string[]>;
  /** A key of each of the other `tenants` (the group clients' scopes, `keyOptions`), by organization id. */
  tenantKeys: Record<string, KafkaKey>;
}

/** The worker settings startKafkaWorker takes beside the partition count. */
type KafkaWorkerOverrides = NonNullable<Parameters<typeof startKafkaWorker>[2]>;

/** Topics of the tenant by name: a partition count, or a count and the topic's configs. */
export type WorldTopics = Record<string, number | [partitions: number, configs: Record<string, string>]>;

/**
 * The file's Kafka world, made in `beforeAll` and taken down in `afterAll` (read it inside hooks and
 * tests): a harness of `harness`; `org`'s `topics`, other `tenants` with their topics and a key
 * each, and what `setup` makes (quotas, more keys), before the worker starts so that it finds them;
 * a key of `org` with `scopes` (the group clients' unless said); and a worker (startKafkaWorker with
 * `worker`'s settings) once it hosts `partitions` partitions (unless said, those of `topics` and
 * `tenants`).
 */
export function useKafkaWorld(
  harness: Parameters<typeof openWorkerHarness>[0],
  org: string,
  options: {
    topics?: WorldTopics;
    tenants?: Record<string, WorldTopics>;
    partitions?: number;
    scopes?: readonly Scope[];
    keyOptions?: Parameters<typeof createKafkaKey>[3];
    worker?: KafkaWorkerOverrides;
    setup?: (h: WorkerHarness) => Promise<void>;
  } = {},
): KafkaWorld {
  const topics = worldTopics(options.topics);
  const tenants = Object.entries(options.tenants ?? {}).map(
    ([tenant, t]) => [tenant, worldTopics(t)] as const,
  );
  const partitions =
    options.partitions ?? [topics, ...tenants.map(([, t]) => t)].flat().reduce((n, t) => n + t.partitions, 0);
  return usePerFile(
    async () => {
      const h = await openWorkerHarness(harness);
      try {
        const topicIds: Record<string, string[]> = {};
        for (const t of topics) {
          topicIds[t.name] = await createNamedTopic(h.db.prisma, org, t.name, t.partitions, t.configs);
        }
        const tenantKeys: Record<string, KafkaKey> = {};
        for (const [tenant, tenantTopics] of tenants) {
          for (const t of tenantTopics)
            await createNamedTopic(h.db.prisma, tenant, t.name, t.partitions, t.configs);
          tenantKeys[tenant] = await createKafkaKey(h.db.prisma, tenant, CLIENT_SCOPES, options.keyOptions);
        }
        await options.setup?.(h);
        const scopes = options.scopes ?? CLIENT_SCOPES;
        const key = await createKafkaKey(h.db.prisma, org, scopes, options.keyOptions);
        const { worker, bootstrap } = await startKafkaWorker(h, partitions, options.worker);
        return { h, worker, bootstrap, key, topicIds, tenantKeys };
      } catch (error) {
        // usePerFile closes only what it was handed: a failed start must not leave the database behind.
        await h.close();
        throw error;
      }
    },
    (world) => world.h.close(),
  );
}

/** `topics` as createNamedTopic takes them. */
function worldTopics(topics: WorldTopics = {}) {
  return Object.entries(topics).map(([name, t]) => ({
    name,
    partitions: typeof t === "number" ? t : t[0],
    configs: typeof t === "number" ? {} : t[1],
  }));
}

/** What a test of the control plane and the Kafka port together runs on: keys and tenants come from `control`. */
export interface ControlPlaneWorld {
  h: WorkerHarness;
  /** The API's server on the harness's database and data plane, and REST calls to it. */
  control: TestControlPlane;
  /** A worker serving Kafka whose groups rebalance at once; it hosts the topics made through `control`. */
  worker: RunningWorker;
  /** The worker's Kafka listener, as clients dial it (`host:port`). */
  bootstrap: string;
}

/**
 * The file's control plane (openControlPlane, named `controlName`) and Kafka worker on a harness of
 * `harness`, made in `beforeAll` and closed in `afterAll`, the control plane first.
 */
export function useControlPlaneWorld(
  harness: Parameters<typeof openWorkerHarness>[0],
  controlName: string,
): ControlPlaneWorld {
  return usePerFile(
    async () => {
      const h = await openWorkerHarness(harness);
      const control = openControlPlane({ name: controlName, prisma: h.db.prisma, dataPlane: h.client });
      try {
        const worker = await h.startWorker({
          claimIntervalMs: 100,
          kafka: { host: "127.0.0.1", port: 0, groups: { initialRebalanceDelayMs: 0 } },
        });
        return { h, control, worker, bootstrap: `${worker.kafka!.host}:${worker.kafka!.port}` };
      } catch (error) {
        await control.close();
        await h.close();
        throw error;
      }
    },
    async (world) => {
      await world.control.close();
      await world.h.close();
    },
  );
}

/**
 * The lease TTL of the failover tests' worker processes: short, so that a SIGKILLed owner's
 * partitions, groups and transactional ids move within seconds.
 */
export const FAILOVER_LEASE_TTL_MS = 2_000;

/** What a test that spawns and kills worker processes runs on: their harness and a key of the tenant. */
export interface FailoverWorld {
  /** Its client waits for a new owner across a lease expiry and the takeover. */
  harness: WorkerHarness;
  /** A key of `org` with `scopes`; like the harness, empty until `beforeAll`. */
  key: KafkaKey;
}

/**
 * The file's harness for worker processes it spawns and kills (useWorkerHarness, its client waiting
 * `ownerWaitMs` for a new owner: unless said, five FAILOVER_LEASE_TTL_MS) and a key of `org` with
 * `scopes` (the group clients' unless said). Both are filled in `beforeAll` (read them inside hooks
 * and tests), so the file may name them at its top level.
 */
export function useFailoverWorld(
  name: string,
  org: string,
  options: { ownerWaitMs?: number; scopes?: readonly Scope[] } = {},
): FailoverWorld {
  const harness = useWorkerHarness({ name, ownerWaitMs: options.ownerWaitMs ?? 5 * FAILOVER_LEASE_TTL_MS });
  const key = {} as KafkaKey;
  beforeAll(async () => {
    Object.assign(key, await createKafkaKey(harness.db.prisma, org, options.scopes ?? CLIENT_SCOPES));
  });
  return { harness, key };
}
