/**
 * Loads reused for `ttlMs` per key on the caller's clock: callers within the TTL share one load
 * (also while it is in flight), a failed load is forgotten at once so the next caller retries, and
 * past `maxKeys` entries the cache starts over, so a flood of distinct keys cannot grow it.
 */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, { at: number; value: Promise<V> }>();
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #maxKeys: number;

  constructor(options: { ttlMs: number; now: () => number; maxKeys?: number }) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now;
    this.#maxKeys = options.maxKeys ?? 10_000;
  }

  get(key: K, load: () => Promise<V>): Promise<V> {
    const now = this.#now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.#ttlMs) return hit.value;
    if (this.#entries.size > this.#maxKeys) this.#entries.clear();
    const value = load();
    const entry = { at: now, value };
    this.#entries.set(key, entry);
    // Only this load's entry: a newer one set meanwhile (after a clear) stays.
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }

  /** Forgets one entry: the next `get` of `key` loads again. */
  forget(key: K): void {
    this.#entries.delete(key);
  }

  /** Forgets every entry: the next `get` of any key loads again. */
  clear(): void {
    this.#entries.clear();
  }
}
