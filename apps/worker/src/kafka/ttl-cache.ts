/**
 * Loads reused for `ttlMs` per key on the caller's clock: callers within the TTL share one load
 * (also while it is in flight), a failed load is forgotten at once so the next caller retries, and
 * past `maxKeys` entries the cache starts over, so a flood of distinct keys cannot grow it.
 *
 * Refresh-ahead: a get in the last quarter of an entry's TTL answers from the entry and starts one
 * load in the background, which replaces the entry when it succeeds (stamped with its start, so no
 * answer is older than the TTL either way). A key read steadily is therefore never loaded on its
 * reader's path: the noisy-neighbour bench found every fifth produce of a quiet tenant waiting on
 * a catalog query, which under another tenant's flood was the slowest step of its p99.
 */
export class TtlCache<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  readonly #ttlMs: number;
  readonly #refreshAfterMs: number;
  readonly #now: () => number;
  readonly #maxKeys: number;

  constructor(options: { ttlMs: number; now: () => number; maxKeys?: number }) {
    this.#ttlMs = options.ttlMs;
    this.#refreshAfterMs = (options.ttlMs * 3) / 4;
    this.#now = options.now;
    this.#maxKeys = options.maxKeys ?? 10_000;
  }

  get(key: K, load: () => Promise<V>): Promise<V> {
    const now = this.#now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.#ttlMs) {
      if (hit.settled && !hit.refreshing && now - hit.at >= this.#refreshAfterMs)
        this.#refresh(key, hit, load);
      return hit.value;
    }
    if (this.#entries.size > this.#maxKeys) this.#entries.clear();
    return this.#store(key, now, load()).value;
  }

  /** Forgets one entry: the next `get` of `key` loads again. */
  forget(key: K): void {
    this.#entries.delete(key);
  }

  /** Forgets every entry: the next `get` of any key loads again. */
  clear(): void {
    this.#entries.clear();
  }

  #store(key: K, at: number, value: Promise<V>): Entry<V> {
    const entry: Entry<V> = { at, value, settled: false, refreshing: false };
    this.#entries.set(key, entry);
    // Only this load's entry: a newer one set meanwhile (after a clear) stays.
    value.then(
      () => {
        entry.settled = true;
      },
      () => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      },
    );
    return entry;
  }

  #refresh(key: K, current: Entry<V>, load: () => Promise<V>): void {
    current.refreshing = true;
    const at = this.#now();
    load().then(
      (value) => {
        // Forgotten, cleared or replaced meanwhile: that decision stands.
        if (this.#entries.get(key) === current) this.#store(key, at, Promise.resolve(value));
      },
      // One try per entry: it serves out its TTL, and the first get after that loads on its own
      // path (a database outage costs one failed background load per key and TTL, not one per get).
      () => undefined,
    );
  }
}

interface Entry<V> {
  /** When its load started, on the caller's clock. */
  at: number;
  value: Promise<V>;
  /** The load succeeded (only a settled entry is refreshed ahead). */
  settled: boolean;
  /** A refresh-ahead load was started for it (in flight, or failed: one try per entry). */
  refreshing: boolean;
}
