import { hashKey128, keyHashWords } from "./key-hash";

// The cleaner's dedupe map: key hash → highest offset seen, in a fixed memory budget (Kafka's
// SkimpyOffsetMap). Open addressing over typed arrays: 16 bytes of hash and an 8-byte offset per
// slot, so 24 bytes a slot as in Kafka. The slot count is the largest prime that fits the budget,
// which lets double hashing visit every slot; that keeps probe chains short at Kafka's 0.9 load
// factor, where linear probing would degrade. Deletes are not supported (nor needed).

export const OFFSET_MAP_BYTES_PER_SLOT = 24;
/** Kafka's `log.cleaner.io.buffer.load.factor`: the map takes at most floor(slots × 0.9) keys. */
export const OFFSET_MAP_LOAD_FACTOR = 0.9;
const HASH_WORDS = 4;
const EMPTY = -1;

function isPrime(n: number): boolean {
  if (n < 2) return false;
  if (n % 2 === 0) return n === 2;
  for (let d = 3; d * d <= n; d += 2) if (n % d === 0) return false;
  return true;
}

/** Slots an offset map gets from `budgetBytes`: the largest prime that fits, or 0. */
export function offsetMapSlots(budgetBytes: number): number {
  let slots = Math.floor(budgetBytes / OFFSET_MAP_BYTES_PER_SLOT);
  while (slots >= 2 && !isPrime(slots)) slots--;
  return slots >= 2 ? slots : 0;
}

/** Distinct keys one pass can map with `budgetBytes`; 0 means the budget cannot hold one entry. */
export function offsetMapMaxEntries(budgetBytes: number): number {
  const slots = offsetMapSlots(budgetBytes);
  // Kafka requires slots × loadFactor > 1 ("offset map is too small to fit in even a single message").
  return slots * OFFSET_MAP_LOAD_FACTOR > 1 ? Math.floor(slots * OFFSET_MAP_LOAD_FACTOR) : 0;
}

export class OffsetMap {
  readonly slots: number;
  readonly maxEntries: number;
  readonly budgetBytes: number;
  private readonly hashes: Int32Array;
  private readonly offsets: Float64Array;
  private seed = 0;
  private entries = 0;

  /** Callers validate the budget first (`offsetMapMaxEntries(budget) > 0`); this asserts it. */
  constructor(budgetBytes: number) {
    const maxEntries = offsetMapMaxEntries(budgetBytes);
    if (maxEntries < 1) throw new RangeError(`offset map budget ${budgetBytes} B cannot hold one entry`);
    this.budgetBytes = budgetBytes;
    this.slots = offsetMapSlots(budgetBytes);
    this.maxEntries = maxEntries;
    this.hashes = new Int32Array(this.slots * HASH_WORDS);
    this.offsets = new Float64Array(this.slots).fill(EMPTY);
  }

  get size(): number {
    return this.entries;
  }

  /** True when Kafka's rule says stop mapping: the next put could exceed the load factor. */
  get full(): boolean {
    return this.entries >= this.maxEntries;
  }

  get utilization(): number {
    return this.entries / this.slots;
  }

  /** Empties the map and reseeds the hash, so one pass's collisions do not repeat in the next. */
  clear(seed: number): void {
    if (this.entries > 0) this.offsets.fill(EMPTY);
    this.entries = 0;
    this.seed = seed | 0;
  }

  /** Records `offset` as the latest for the key `buf[start, end)`; a later put for it overwrites. */
  put(buf: Uint8Array, start: number, end: number, offset: number): void {
    hashKey128(buf, start, end, this.seed);
    const slot = this.probe();
    if (this.offsets[slot] === EMPTY) {
      if (this.entries >= this.slots - 1) throw new RangeError("offset map overfilled past its load factor");
      this.entries++;
      const at = slot * HASH_WORDS;
      this.hashes[at] = keyHashWords[0]!;
      this.hashes[at + 1] = keyHashWords[1]!;
      this.hashes[at + 2] = keyHashWords[2]!;
      this.hashes[at + 3] = keyHashWords[3]!;
    }
    this.offsets[slot] = offset;
  }

  /** The latest offset recorded for the key `buf[start, end)`, or -1 (as Kafka's map). */
  get(buf: Uint8Array, start: number, end: number): number {
    hashKey128(buf, start, end, this.seed);
    return this.offsets[this.probe()]!;
  }

  /** The slot holding the hash in `keyHashWords`, or the empty slot where it would go. */
  private probe(): number {
    const h0 = keyHashWords[0]!;
    const h1 = keyHashWords[1]!;
    const h2 = keyHashWords[2]!;
    const h3 = keyHashWords[3]!;
    const slots = this.slots;
    let slot = (h0 >>> 0) % slots;
    const step = slots > 2 ? 1 + ((h1 >>> 0) % (slots - 1)) : 1;
    const hashes = this.hashes;
    const offsets = this.offsets;
    for (;;) {
      if (offsets[slot] === EMPTY) return slot;
      const at = slot * HASH_WORDS;
      if (hashes[at] === h0 && hashes[at + 1] === h1 && hashes[at + 2] === h2 && hashes[at + 3] === h3) {
        return slot;
      }
      slot += step;
      if (slot >= slots) slot -= slots;
    }
  }
}

// One idle map is kept for reuse, as Kafka keeps one per cleaner thread: allocating and clearing
// a budget-sized pair of typed arrays per pass would cost more than small passes themselves.
let idleMap: OffsetMap | null = null;
/** Prime gaps below 2^32 are under 400, so this many spare slots absorb the rounding down. */
const PRIME_GAP_SLOTS = 400;

/** Bytes of a map that holds at least `keys` entries (before the caller's budget cap). */
function bytesForKeys(keys: number): number {
  return (Math.ceil(keys / OFFSET_MAP_LOAD_FACTOR) + PRIME_GAP_SLOTS) * OFFSET_MAP_BYTES_PER_SLOT;
}

/**
 * A cleared map for one pass, within `budgetBytes`. When the pass can meet at most `expectedKeys`
 * keys (the records it will scan), the map is sized to hold them all, never past the budget: it
 * then behaves exactly as a full-budget map would, since neither fills. Give it back with
 * `releaseOffsetMap`.
 */
export function acquireOffsetMap(
  budgetBytes: number,
  seed: number,
  expectedKeys = Number.POSITIVE_INFINITY,
): OffsetMap {
  const bytes = Math.min(budgetBytes, bytesForKeys(expectedKeys));
  const needed = offsetMapMaxEntries(bytes);
  const idle = idleMap;
  const reuse = idle !== null && idle.budgetBytes <= budgetBytes && idle.maxEntries >= needed;
  const map = reuse ? idle : new OffsetMap(bytes);
  if (reuse) idleMap = null;
  map.clear(seed);
  return map;
}

export function releaseOffsetMap(map: OffsetMap): void {
  idleMap = map;
}
