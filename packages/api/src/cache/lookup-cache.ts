import assert from "node:assert/strict";
import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import { LRUCache } from "lru-cache";
import { isDatabaseUnreachable } from "../errors/database-unavailable";

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
  /** Times the TTL and staleness: the server's clock, so a test moves it instead of sleeping. */
  clock: Clock;
}

/**
 * A per-process cache of database lookups (API-key rows, tenant quotas, topic routing) on
 * `lru-cache`: a value is reused for `ttlMs`, concurrent misses share one load, a failed load is
 * not kept. When a refresh fails because Postgres is unreachable (`isDatabaseUnreachable`), the
 * last value found is served for up to `staleIfUnreachableMs` after it was read; a lookup that
 * found nothing (null) is never served stale, and any other error propagates at once.
 * `forget`/`clear` drop entries when this process changes what they hold; a load in flight at that
 * moment is not stored, and its callers read again.
 *
 * Refresh-ahead: a get in the last quarter of an entry's TTL answers from the entry and starts one
 * load in the background (once per entry), whose value replaces the entry if it is still the one
 * cached. A key read on every request (a tenant's quota) is then never loaded on a request's path
 * while it is read steadily: under another tenant's flood that query was a quiet tenant's slowest
 * step (the noisy-neighbour bench).
 */
export class LookupCache<V extends object> {
  readonly #lru: LRUCache<string, Entry<V>, Load<V>>;
  readonly clock: Clock;
  readonly #staleMs: number;
  // Abort reasons of loads cut short by forget/clear/eviction: their callers read again.
  readonly #aborted = new WeakSet<object>();
  readonly #refreshAheadMs: number;
  /** Entries a refresh-ahead load was started for (one per entry). */
  readonly #refreshed = new WeakSet<Entry<V>>();

  constructor(options: LookupCacheOptions) {
    this.clock = options.clock;
    this.#staleMs = options.staleIfUnreachableMs ?? STALE_IF_UNREACHABLE_MS;
    this.#refreshAheadMs = options.ttlMs / 4;
    this.#lru = new LRUCache<string, Entry<V>, Load<V>>({
      max: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      ttl: options.ttlMs,
      // An expired entry stays (until evicted) as the stale value handed to the next refresh.
      ttlAutopurge: false,
      allowStale: false,
      perf: this.clock,
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
      return { value: await load(), loadedAt: this.clock.now() };
    } catch (error) {
      const servable =
        stale !== undefined && stale.value !== null && this.clock.now() - stale.loadedAt <= this.#staleMs;
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
    this.#refreshAhead(key, load);
    for (;;) {
      try {
        const entry = await this.#lru.fetch(key, { context: load });
        if (entry) return entry.value as R;
      } catch (error) {
        if (!(typeof error === "object" && error !== null && this.#aborted.has(error))) throw error;
      }
    }
  }

  #refreshAhead(key: string, load: Load<V>): void {
    const remaining = this.#lru.getRemainingTTL(key);
    if (!(remaining > 0 && remaining <= this.#refreshAheadMs)) return;
    // undefined while the key's first load is in flight: nothing to refresh yet.
    const entry = this.#lru.peek(key);
    if (entry === undefined || this.#refreshed.has(entry)) return;
    this.#refreshed.add(entry);
    load().then(
      (value) => {
        // Forgotten, cleared, expired or replaced meanwhile: that stands.
        if (this.#lru.peek(key) === entry) this.#lru.set(key, { value, loadedAt: this.clock.now() });
      },
      // The entry serves out its TTL; the fetch after it handles the error (stale-if-unreachable).
      () => undefined,
    );
  }

  forget(key: string): void {
    this.#lru.delete(key);
  }

  clear(): void {
    this.#lru.clear();
  }
}

/** What a cached lookup reads through: the database it asks and the clock that ages its answers. */
export interface LookupDeps {
  prisma: PrismaClient;
  clock: Clock;
}

/** The caches of one kind, one per owner (a PrismaClient): servers over different databases never share entries. */
export interface CachesPerOwner<V extends object> {
  /**
   * The owner's cache, made on first use and timed by that use's clock. Every user of one owner
   * passes the same clock: an entry stamped by one clock and aged by another has no meaningful age.
   */
  of(owner: object, clock: Clock): LookupCache<V>;
  /** The owner's cache if it was ever used (dropping entries needs no clock: no cache, nothing to drop). */
  existing(owner: object): LookupCache<V> | undefined;
}

export function cachePerOwner<V extends object>(
  options: Omit<LookupCacheOptions, "clock">,
): CachesPerOwner<V> {
  const byOwner = new WeakMap<object, LookupCache<V>>();
  return {
    of(owner, clock) {
      let cache = byOwner.get(owner);
      if (cache === undefined) {
        cache = new LookupCache<V>({ ...options, clock });
        byOwner.set(owner, cache);
      }
      assert(cache.clock === clock, "one owner's lookup cache is read with two clocks");
      return cache;
    },
    existing: (owner) => byOwner.get(owner),
  };
}
