import { LRUCache } from "lru-cache";
import { isDatabaseUnreachable } from "../errors/database-unavailable";
import { perOwner } from "./per-owner";

/**
 * How long a row last read from Postgres may still be served while Postgres cannot be reached
 * (stale-if-error). Bounded so that a long outage does not keep a revoked key or a changed quota
 * in force indefinitely; past it the lookup's own error propagates.
 */
export const STALE_IF_UNREACHABLE_MS = 10 * 60_000;

/** Entries per cache (per owner): LRU beyond this. */
const DEFAULT_MAX_ENTRIES = 10_000;

interface Entry<V> {
  /** null: the lookup succeeded and found nothing (never served stale). */
  value: V | null;
  /** When the database answered it (kept when the entry is served stale, so the bound holds). */
  loadedAt: number;
}

type Load<V> = () => Promise<V | null>;

export interface LookupCacheOptions {
  /** How long a looked-up value is reused without asking again (kept ≤ 1 s on the request path). */
  ttlMs: number;
  maxEntries?: number;
  /** Defaults to STALE_IF_UNREACHABLE_MS. */
  staleIfUnreachableMs?: number;
  /** Milliseconds clock for TTL and staleness (tests); defaults to performance.now. */
  now?: () => number;
}

/**
 * A per-process cache of database lookups (API-key rows, tenant quotas, topic routing) on
 * `lru-cache`: a value is reused for `ttlMs`, concurrent misses share one load, a failed load is
 * not kept. When a refresh fails because Postgres is unreachable (`isDatabaseUnreachable`), the
 * last value found is served for up to `staleIfUnreachableMs` after it was read; a lookup that
 * found nothing (null) is never served stale, and any other error propagates at once.
 * `forget`/`clear` drop entries when this process changes what they hold; a load in flight at that
 * moment is not stored, and its callers read again.
 */
export class LookupCache<V extends object> {
  readonly #lru: LRUCache<string, Entry<V>, Load<V>>;
  readonly #now: () => number;
  readonly #staleMs: number;
  // Abort reasons of loads cut short by forget/clear/eviction: their callers read again.
  readonly #aborted = new WeakSet<object>();

  constructor(options: LookupCacheOptions) {
    this.#now = options.now ?? (() => performance.now());
    this.#staleMs = options.staleIfUnreachableMs ?? STALE_IF_UNREACHABLE_MS;
    this.#lru = new LRUCache<string, Entry<V>, Load<V>>({
      max: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      ttl: options.ttlMs,
      // An expired entry stays (until evicted) as the stale value handed to the next refresh.
      ttlAutopurge: false,
      allowStale: false,
      perf: { now: this.#now },
      // Read the clock on every check: cheaper than the timer lru-cache arms to reuse a reading.
      ttlResolution: 0,
      fetchMethod: (_key, stale, { signal, context: load }) => this.#load(load, stale, signal),
    });
  }

  async #load(load: Load<V>, stale: Entry<V> | undefined, signal: AbortSignal): Promise<Entry<V>> {
    signal.addEventListener("abort", () => {
      if (typeof signal.reason === "object" && signal.reason !== null) this.#aborted.add(signal.reason);
    });
    try {
      return { value: await load(), loadedAt: this.#now() };
    } catch (error) {
      const servable =
        stale !== undefined && stale.value !== null && this.#now() - stale.loadedAt <= this.#staleMs;
      // Stored again as fresh for ttlMs, so an outage costs one failed lookup per key and TTL.
      if (servable && isDatabaseUnreachable(error)) return stale;
      throw error;
    }
  }

  /**
   * The cached value of `key`, or `load()`'s (null = none; cached for the TTL like a value, and
   * shared: callers must not change it). Every caller of one key passes the same kind of loader.
   */
  async get<R extends V | null>(key: string, load: () => Promise<R>): Promise<R> {
    for (;;) {
      try {
        const entry = await this.#lru.fetch(key, { context: load });
        if (entry) return entry.value as R;
      } catch (error) {
        if (!(typeof error === "object" && error !== null && this.#aborted.has(error))) throw error;
      }
    }
  }

  forget(key: string): void {
    this.#lru.delete(key);
  }

  clear(): void {
    this.#lru.clear();
  }
}

/** One cache per owner (a PrismaClient), so servers over different databases never share entries. */
export function cachePerOwner<V extends object>(
  options: LookupCacheOptions,
): (owner: object) => LookupCache<V> {
  return perOwner(() => new LookupCache<V>(options));
}
