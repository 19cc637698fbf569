import { createHash } from "node:crypto";
import { isDatabaseUnreachable, STALE_IF_UNREACHABLE_MS } from "@lastword/api/key-auth";
import type { PrismaClient } from "@lastword/db";
import { parseTopicConfig, type TopicConfig } from "@lastword/topic-config";
import { HELD_SESSIONS } from "../ownership/worker-session";
import { TtlCache } from "./ttl-cache";

/** A live worker as a Kafka broker. */
export interface KafkaBroker {
  nodeId: number;
  workerId: string;
  host: string;
  port: number;
}

export interface CatalogPartition {
  id: string;
  index: number;
  /** The lease owner's node id, or null while nobody holds a live lease (LEADER_NOT_AVAILABLE). */
  leaderId: number | null;
  /** The lease epoch: bumped whenever the partition's lease moves, so it is Kafka's leader epoch. */
  leaderEpoch: number;
  ownerWorkerId: string | null;
}

export interface CatalogTopic {
  id: string;
  name: string;
  kafkaTopicId: string;
  config: TopicConfig;
  partitions: CatalogPartition[];
}

/**
 * How stale a Metadata answer may be: clients ask often (kafkajs on every refresh, librdkafka per
 * topic), and one that meets NOT_LEADER_OR_FOLLOWER asks again.
 */
export const CATALOG_CACHE_MS = 250;

/** Answers kept for outages (the broker list and each tenant's topics); past this many it starts over. */
const MAX_LAST_GOOD = 10_000;

/** The same stable id for a tenant on every worker, revealing nothing of the tenant id. */
export function clusterIdOf(tenantId: string): string {
  return `lw-${createHash("sha256").update(tenantId).digest("base64url").slice(0, 20)}`;
}

/**
 * Tenant-scoped view of topics, partitions and brokers for the Kafka listener. Topics resolve by
 * (tenant, name) only: another tenant's topic is exactly a missing one.
 */
export class KafkaCatalog {
  readonly #prisma: PrismaClient;
  readonly #leaseTtlMs: number;
  readonly #workerId: string;
  readonly #now: () => number;
  readonly #brokers: TtlCache<"brokers", KafkaBroker[]>;
  readonly #topics: TtlCache<string, CatalogTopic[]>;
  /** The last answer Postgres gave per key, and when: what is served while it is unreachable. */
  readonly #lastGood = new Map<string, { at: number; value: unknown }>();

  constructor(prisma: PrismaClient, options: { leaseTtlMs: number; workerId: string; now: () => number }) {
    this.#prisma = prisma;
    this.#leaseTtlMs = options.leaseTtlMs;
    this.#workerId = options.workerId;
    this.#now = options.now;
    this.#brokers = new TtlCache({ ttlMs: CATALOG_CACHE_MS, now: options.now });
    this.#topics = new TtlCache({ ttlMs: CATALOG_CACHE_MS, now: options.now });
  }

  /** Live workers with a Kafka listener, by node id; identical on every worker. */
  brokers(): Promise<KafkaBroker[]> {
    return this.#brokers.get("brokers", () => this.#orLastGood("brokers", () => this.#loadBrokers()));
  }

  topics(tenantId: string): Promise<CatalogTopic[]> {
    return this.#topics.get(tenantId, () =>
      this.#orLastGood(`topics:${tenantId}`, () => this.#loadTopics(tenantId)),
    );
  }

  async topic(tenantId: string, name: string): Promise<CatalogTopic | null> {
    return (await this.topics(tenantId)).find((t) => t.name === name) ?? null;
  }

  /** Forgets cached answers (a test moved a partition, or this worker's own ownership changed). */
  invalidate(): void {
    this.#brokers.clear();
    this.#topics.clear();
    // Its own change makes the kept answers wrong about this worker: none is served any more.
    this.#lastGood.clear();
  }

  /**
   * `load()`, remembered; while Postgres is unreachable the last answer it gave, for up to
   * STALE_IF_UNREACHABLE_MS after it (the REST API's and the Kafka logins' bound), so Metadata,
   * Produce and Fetch keep serving the partitions this worker hosts during an outage. A leader
   * named here that moved meanwhile is harmless: the write path's own fencing (DESIGN.md, "Postgres
   * down") refuses it with NOT_LEADER_OR_FOLLOWER. Any other failure propagates.
   */
  async #orLastGood<V>(key: string, load: () => Promise<V>): Promise<V> {
    try {
      const value = await load();
      if (this.#lastGood.size >= MAX_LAST_GOOD) this.#lastGood.clear();
      this.#lastGood.set(key, { at: this.#now(), value });
      return value;
    } catch (error) {
      const last = this.#lastGood.get(key);
      if (!last || !isDatabaseUnreachable(error) || this.#now() - last.at > STALE_IF_UNREACHABLE_MS)
        throw error;
      return last.value as V;
    }
  }

  async #loadBrokers(): Promise<KafkaBroker[]> {
    // Liveness on the database clock, as the claim loop judges it: a worker whose session ended is
    // dead (worker-session.ts), and its partitions are named leaderless until a peer claims them.
    // Not this worker, which is answering: while its own session reconnects (after a Postgres
    // outage) it still leads what it holds, and a peer that claims those moves them in the rows.
    const rows = await this.#prisma.$queryRaw<
      { id: string; nodeId: number; kafkaHost: string; kafkaPort: number }[]
    >`
      SELECT "id", "nodeId", "kafkaHost", "kafkaPort" FROM "Worker"
      WHERE "stoppedAt" IS NULL AND "kafkaHost" IS NOT NULL AND "kafkaPort" IS NOT NULL
        AND "heartbeatAt" > (now() AT TIME ZONE 'UTC') - make_interval(secs => ${this.#leaseTtlMs / 1000})
        AND (NOT "sessionLock" OR "nodeId"::oid IN ${HELD_SESSIONS} OR "id" = ${this.#workerId})
      ORDER BY "nodeId"`;
    return rows.map((r) => ({ nodeId: r.nodeId, workerId: r.id, host: r.kafkaHost, port: r.kafkaPort }));
  }

  async #loadTopics(tenantId: string): Promise<CatalogTopic[]> {
    const [brokers, topics] = await Promise.all([
      this.brokers(),
      this.#prisma.topic.findMany({
        where: { organizationId: tenantId },
        orderBy: { name: "asc" },
        include: {
          partitions: {
            select: { id: true, index: true, ownerWorkerId: true, leaseExpiresAt: true, leaseEpoch: true },
          },
        },
      }),
    ]);
    const nodeOf = new Map(brokers.map((b) => [b.workerId, b.nodeId]));
    const now = this.#now();
    return topics.map((t) => ({
      id: t.id,
      name: t.name,
      kafkaTopicId: t.kafkaTopicId,
      config: parseTopicConfig(t.configs as Record<string, string | number>),
      partitions: t.partitions
        .sort((a, b) => a.index - b.index)
        .map((p) => {
          const live =
            p.ownerWorkerId !== null && p.leaseExpiresAt !== null && p.leaseExpiresAt.getTime() > now;
          const leaderId = live ? (nodeOf.get(p.ownerWorkerId as string) ?? null) : null;
          return {
            id: p.id,
            index: p.index,
            leaderId,
            leaderEpoch: p.leaseEpoch,
            ownerWorkerId: p.ownerWorkerId,
          };
        }),
    }));
  }
}
