/**
 * Per-partition key index: 64-bit key hash → latest offset (and whether that record is a tombstone).
 * Open addressing over typed arrays, so memory is fixed per slot and independent of key or value
 * size: 4 + 4 (hash) + 8 (offset) + 1 (flags) = 17 bytes per slot, 3/8 to 3/4 full → 23 to 46
 * bytes per key, plus a transient copy while the table doubles or a snapshot freezes it.
 *
 * Like Kafka's cleaner offset map, the index trusts the hash: two keys share an entry only if
 * their 64-bit hashes collide (≈ n²/2⁶⁵ for n keys in a partition). Lookups re-check the key on the
 * record they read and fall back to a scan if it is not theirs.
 */
const USED = 1;
const TOMBSTONE = 2;
const INITIAL_SLOTS = 1024;
const MAX_LOAD = 0.75;
export const KEY_INDEX_BYTES_PER_SLOT = 17;

export interface KeyEntry {
  offset: number;
  tombstone: boolean;
}

/**
 * The used entries of an index, column by column (what a persisted snapshot stores): each key's
 * two hash halves, its latest offset and whether that record is a tombstone (1) or not (0).
 */
export interface KeyIndexEntries {
  hi: Uint32Array;
  lo: Uint32Array;
  offsets: Float64Array;
  tombstones: Uint8Array;
}

function murmur32(key: Uint8Array, seed: number): number {
  let h = seed >>> 0;
  const n = key.length;
  const blocks = n & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k = key[i]! | (key[i + 1]! << 8) | (key[i + 2]! << 16) | (key[i + 3]! << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = n & 3;
  if (tail > 0) {
    let k = key[blocks]!;
    if (tail > 1) k |= key[blocks + 1]! << 8;
    if (tail > 2) k |= key[blocks + 2]! << 16;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
  }
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The two 32-bit halves of a key's index hash. */
export function keyHash(key: Uint8Array): [number, number] {
  return [murmur32(key, 0x9747b28c), murmur32(key, 0x5bd1e995)];
}

class Table {
  hi: Uint32Array;
  lo: Uint32Array;
  offsets: Float64Array;
  flags: Uint8Array;
  size = 0;

  constructor(slots: number) {
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
    this.offsets = new Float64Array(slots);
    this.flags = new Uint8Array(slots);
  }

  get slots(): number {
    return this.flags.length;
  }

  /** The slot holding this hash, or the empty slot where it would go. */
  find(hi: number, lo: number): number {
    const mask = this.slots - 1;
    let i = (lo ^ hi) & mask;
    while (this.flags[i]! & USED && (this.hi[i] !== hi || this.lo[i] !== lo)) i = (i + 1) & mask;
    return i;
  }

  copy(): Table {
    const t = new Table(0);
    t.hi = this.hi.slice();
    t.lo = this.lo.slice();
    t.offsets = this.offsets.slice();
    t.flags = this.flags.slice();
    t.size = this.size;
    return t;
  }
}

/** A read-only view of the index at one instant (what a snapshot filters by). */
export class FrozenKeyIndex {
  readonly #table: Table;

  constructor(table: Table) {
    this.#table = table;
  }

  get(key: Uint8Array): KeyEntry | undefined {
    const [hi, lo] = keyHash(key);
    const i = this.#table.find(hi, lo);
    const flags = this.#table.flags[i]!;
    if (!(flags & USED)) return undefined;
    return { offset: this.#table.offsets[i]!, tombstone: (flags & TOMBSTONE) !== 0 };
  }

  get size(): number {
    return this.#table.size;
  }

  /** Offsets of the live (not tombstoned) entries, ascending: where a snapshot's records are. */
  liveOffsets(): Float64Array {
    return this.#offsets(USED | TOMBSTONE);
  }

  /** Every key's latest offset, tombstones included, ascending: what the Kafka `.latest` view serves. */
  latestOffsets(): Float64Array {
    return this.#offsets(USED);
  }

  /** Offsets of the entries whose flags masked by `mask` are exactly USED, ascending. */
  #offsets(mask: number): Float64Array {
    const t = this.#table;
    const out = new Float64Array(t.size);
    let n = 0;
    for (let i = 0; i < t.slots; i++) if ((t.flags[i]! & mask) === USED) out[n++] = t.offsets[i]!;
    return out.subarray(0, n).sort();
  }
}

export class KeyIndex {
  #table = new Table(INITIAL_SLOTS);

  get size(): number {
    return this.#table.size;
  }

  /** Bytes the table occupies now. */
  get bytes(): number {
    return this.#table.slots * KEY_INDEX_BYTES_PER_SLOT;
  }

  /** Records `offset` as the key's latest unless a later offset is already known (order-free). */
  set(key: Uint8Array, offset: number, tombstone: boolean): void {
    const [hi, lo] = keyHash(key);
    this.setHashed(hi, lo, offset, tombstone);
  }

  /** `set` for a key known only by its hash (an index loaded from a snapshot). */
  setHashed(hi: number, lo: number, offset: number, tombstone: boolean): void {
    const t = this.#table;
    const i = t.find(hi, lo);
    if (t.flags[i]! & USED) {
      if (t.offsets[i]! > offset) return;
    } else {
      if ((t.size + 1) / t.slots > MAX_LOAD) {
        this.#grow();
        this.setHashed(hi, lo, offset, tombstone);
        return;
      }
      t.hi[i] = hi;
      t.lo[i] = lo;
      t.size++;
    }
    t.offsets[i] = offset;
    t.flags[i] = USED | (tombstone ? TOMBSTONE : 0);
  }

  get(key: Uint8Array): KeyEntry | undefined {
    return new FrozenKeyIndex(this.#table).get(key);
  }

  /** Every used entry, read from the live table in one synchronous step (slot order). */
  entries(): KeyIndexEntries {
    const t = this.#table;
    const out: KeyIndexEntries = {
      hi: new Uint32Array(t.size),
      lo: new Uint32Array(t.size),
      offsets: new Float64Array(t.size),
      tombstones: new Uint8Array(t.size),
    };
    let n = 0;
    for (let i = 0; i < t.slots; i++) {
      const flags = t.flags[i]!;
      if (!(flags & USED)) continue;
      out.hi[n] = t.hi[i]!;
      out.lo[n] = t.lo[i]!;
      out.offsets[n] = t.offsets[i]!;
      out.tombstones[n] = flags & TOMBSTONE ? 1 : 0;
      n++;
    }
    return out;
  }

  /** An index of `entries` whose offset is at least `fromOffset`, sized once for all of them. */
  static fromEntries(entries: KeyIndexEntries, fromOffset = 0): KeyIndex {
    const index = new KeyIndex();
    let slots = INITIAL_SLOTS;
    // The size the table would have grown to holding them: the same memory as the index it saved.
    while (entries.hi.length / slots > MAX_LOAD) slots *= 2;
    index.#table = new Table(slots);
    for (let i = 0; i < entries.hi.length; i++) {
      const offset = entries.offsets[i]!;
      if (offset < fromOffset) continue;
      index.setHashed(entries.hi[i]!, entries.lo[i]!, offset, entries.tombstones[i] === 1);
    }
    return index;
  }

  freeze(): FrozenKeyIndex {
    return new FrozenKeyIndex(this.#table.copy());
  }

  /** Every key's latest offset, tombstones included, ascending, from the live table (no copy). */
  latestOffsets(): Float64Array {
    return new FrozenKeyIndex(this.#table).latestOffsets();
  }

  #grow(): void {
    const old = this.#table;
    const next = new Table(old.slots * 2);
    for (let i = 0; i < old.slots; i++) {
      if (!(old.flags[i]! & USED)) continue;
      const j = next.find(old.hi[i]!, old.lo[i]!);
      next.hi[j] = old.hi[i]!;
      next.lo[j] = old.lo[i]!;
      next.offsets[j] = old.offsets[i]!;
      next.flags[j] = old.flags[i]!;
    }
    next.size = old.size;
    this.#table = next;
  }
}
