/**
 * A per-process cache of lookups for at most `ttlMs` (kept ≤ 1 s: what it holds, such as an API
 * key or a topic's partitions, may be revoked or deleted, and that must take effect within the TTL).
 * Concurrent misses share one load; a failed load is not kept.
 */
export class ShortCache<V> {
  readonly #entries = new Map<string, { at: number; value: Promise<V> }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, now: number, load: () => Promise<V>): Promise<V> {
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    if (this.#entries.size >= this.maxEntries) this.#entries.clear();
    const value = load();
    const entry = { at: now, value };
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** One cache per owner (a PrismaClient), so servers over different databases never share entries. */
export function cachePerOwner<V>(ttlMs: number): (owner: object) => ShortCache<V> {
  const caches = new WeakMap<object, ShortCache<V>>();
  return (owner) => {
    let cache = caches.get(owner);
    if (!cache) {
      cache = new ShortCache<V>(ttlMs);
      caches.set(owner, cache);
    }
    return cache;
  };
}
