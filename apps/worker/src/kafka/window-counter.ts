/**
 * Counts events (or amounts: bytes, milliseconds) per key in fixed windows of `windowMs` (a key's count restarts when its window
 * passes), holding at most `maxKeys` keys: beyond that the oldest-touched key is forgotten, so a
 * flood of distinct addresses or key ids costs bounded memory. Time comes from `now`, so a test moves it.
 */
export class WindowCounter {
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #counts = new Map<string, { window: number; count: number }>();

  constructor(options: { windowMs: number; maxKeys: number; now: () => number }) {
    this.#windowMs = options.windowMs;
    this.#maxKeys = options.maxKeys;
    this.#now = options.now;
  }

  /** The key's count in the current window. */
  count(key: string): number {
    const entry = this.#counts.get(key);
    return entry && entry.window === this.#window() ? entry.count : 0;
  }

  /** Adds `amount` (one event by default) to the key's count in the current window; returns the new count. */
  add(key: string, amount = 1): number {
    const window = this.#window();
    const entry = this.#counts.get(key);
    const count = (entry && entry.window === window ? entry.count : 0) + amount;
    // Re-inserted, so the Map's order is the order keys were last touched.
    this.#counts.delete(key);
    this.#counts.set(key, { window, count });
    if (this.#counts.size > this.#maxKeys) this.#counts.delete(this.#counts.keys().next().value as string);
    return count;
  }

  /** Milliseconds until the current window ends (when a count over a limit resets). */
  msLeft(): number {
    return this.#windowMs - (this.#now() % this.#windowMs);
  }

  #window(): number {
    return Math.floor(this.#now() / this.#windowMs);
  }
}
