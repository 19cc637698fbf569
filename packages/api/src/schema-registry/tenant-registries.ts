import { SchemaRegistry } from "@lastword/schema-registry";
import { LRUCache } from "lru-cache";
import { type RegistryLogDeps, topicRegistryLog } from "./registry-topic-log";

/**
 * Tenants whose folded registry a web process keeps; past it the least recently used is dropped and
 * replayed from its topic when asked for again. Every read still checks the topic's end offset, so
 * what another process wrote is seen at once (the cache never serves a stale registry).
 */
export const MAX_CACHED_REGISTRIES = 1000;

// Keyed by the server's dependencies object: one cache per API server (tests run several in one process).
const perServer = new WeakMap<RegistryLogDeps, LRUCache<string, SchemaRegistry>>();

/** The tenant's registry in this process (one per server's dependencies, so tests may run several). */
export function tenantRegistry(deps: RegistryLogDeps, tenantId: string): SchemaRegistry {
  let cache = perServer.get(deps);
  if (!cache) {
    cache = new LRUCache({ max: MAX_CACHED_REGISTRIES });
    perServer.set(deps, cache);
  }
  let registry = cache.get(tenantId);
  if (!registry) {
    registry = new SchemaRegistry(topicRegistryLog(deps, tenantId));
    cache.set(tenantId, registry);
  }
  return registry;
}
