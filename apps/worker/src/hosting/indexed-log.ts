import { DataPlaneError } from "@lastword/dataplane";
import type {
  AppendOptions,
  AppendResult,
  CleanResult,
  TxnMarkerAppend,
  TxnMarkerResult,
} from "@lastword/logstore";
import {
  batchField,
  decodeBatch,
  inflateBatch,
  isControlBatch,
  isTransactionalBatch,
  OFF_PRODUCER_ID,
  readInt64,
  readTxnMarker,
} from "@lastword/record-batch";
import { forEachAppended, type ProducePayload, withPlainCopy } from "./appended-records";
import type { AppendRecord, HostedLog, KeyIndexSeeding, LogRecord, OpenLog } from "./hosted-log";
import { type FrozenKeyIndex, KeyIndex } from "./key-index";
import {
  type CatchUp,
  catchUpFrom,
  decodeKeyIndexSnapshot,
  encodeKeyIndexSnapshot,
  KeyIndexSnapshotError,
} from "./key-index-snapshot";

/**
 * How long a snapshot waits for a moment with no append in flight (the index is then exactly the
 * log up to its end). Under writes that never pause it gives up with a retriable error.
 */
export const FREEZE_WAIT_MS = 5_000;

/** Bytes per read while the index is (re)built or a partition is scanned. */
export const SCAN_READ_BYTES = 4 << 20;

/** Every record of the log from `from`, page by page, in offset order. */
export async function* scanLog(log: HostedLog, from: number, end = Number.POSITIVE_INFINITY) {
  let next = Math.max(from, log.logStartOffset);
  while (next < end) {
    const page = await log.read(next, { maxBytes: SCAN_READ_BYTES });
    const last = page[page.length - 1];
    if (!last) return;
    yield page;
    next = last.offset + 1;
  }
}

/** A record of an open transaction, indexed once its COMMIT is written (dropped at its ABORT). */
interface PendingKey {
  key: Buffer;
  offset: number;
  tombstone: boolean;
}

/**
 * The key index of one hosted log (key hash → latest offset), kept current: built by a scan when
 * the log opens, updated on every append, and rebuilt after every cleaner pass that changed files
 * (a pass removes tombstones past their horizon; the rebuild drops them, so memory follows the live
 * keys). Appends during a rebuild go to both tables; offsets only move up, so order is free.
 * It holds committed records only: a transaction's records wait (per producer) for its COMMIT
 * marker and are dropped at its ABORT, so the `.latest` view, key lookups and snapshots never
 * serve an open or aborted transaction's value.
 */
export class KeyIndexedLog {
  readonly inner: HostedLog;
  #index = new KeyIndex();
  #rebuilding: KeyIndex | null = null;
  /** Producer id → its open transaction's keyed records, in offset order. */
  #pending = new Map<number, PendingKey[]>();
  /** From a pass's start to the end of its rebuild: its segments and the index disagree meanwhile. */
  #cleaning = false;
  readonly #inflight = new Set<Promise<unknown>>();
  #snapshots = 0;
  #snapshotsDone: (() => void)[] = [];

  constructor(inner: HostedLog) {
    this.inner = inner;
  }

  get index(): KeyIndex {
    return this.#index;
  }

  /**
   * Starts from a persisted snapshot (key-index-snapshot.ts) instead of a scan of the whole log:
   * its entries at or above the log start, then the records from its active segment's base on.
   * Nothing changes when the snapshot is unreadable or the log is not the one it saw; call before
   * the log serves (appends meanwhile would be missed). Not while a transaction is open in the log:
   * its records before the catch-up's start are in no snapshot (held, not indexed), so only a
   * rebuild's walk finds them for its marker.
   */
  async seedIndex(bytes: Buffer): Promise<KeyIndexSeeding> {
    if (this.inner.openTransactions().length > 0) return { seeded: false, reason: "a transaction is open" };
    let snapshot: ReturnType<typeof decodeKeyIndexSnapshot>;
    try {
      snapshot = decodeKeyIndexSnapshot(bytes);
    } catch (error) {
      return { seeded: false, reason: `unreadable: ${(error as Error).message}` };
    }
    const log = this.inner;
    const plan: CatchUp = catchUpFrom(snapshot, {
      segments: await log.segments(),
      logStartOffset: log.logStartOffset,
      logEndOffset: log.logEndOffset,
    });
    if ("reason" in plan) return { seeded: false, reason: plan.reason };
    const index = KeyIndex.fromEntries(snapshot.entries, log.logStartOffset);
    let counted = 0;
    for await (const page of scanLog(log, plan.from, log.logEndOffset)) {
      indexPage(index, page);
      if (plan.check) for (const r of page) if (r.offset < plan.check.below) counted++;
    }
    if (plan.check && counted !== plan.check.records) {
      return {
        seeded: false,
        reason: `its active segment held ${plan.check.records} records below ${plan.check.below}, the log ${counted}`,
      };
    }
    this.#index = index;
    return { seeded: true, entries: snapshot.entries.hi.length, caughtUpFrom: plan.from };
  }

  /**
   * The index as a persisted snapshot, taken at a moment with no append in flight (so it is
   * exactly the log up to its end, with the segments it lists). Refused while a pass or its
   * rebuild runs (the old table would then be saved beside the cleaned segments' counts) and while
   * a transaction is open (its held records are in no table yet, but below the end it covers).
   */
  async snapshot(): Promise<{ bytes: Buffer; coveredEnd: number }> {
    const taken = await this.#whenQuiet(() => {
      if (this.#rebuilding || this.#cleaning) throw new KeyIndexSnapshotError("a pass is under way");
      if (this.#pending.size > 0 || this.inner.openTransactions().length > 0)
        throw new KeyIndexSnapshotError("a transaction is open");
      const segments = this.inner.segments();
      if (!Array.isArray(segments)) throw new KeyIndexSnapshotError("the segment list is not at hand");
      return { entries: this.#index.entries(), end: this.inner.logEndOffset, segments };
    });
    return { bytes: encodeKeyIndexSnapshot(taken.entries, taken.end, taken.segments), coveredEnd: taken.end };
  }

  /**
   * Below the last stable offset the log's committed read is the truth (aborted records left out);
   * from it on, batches are walked as a read_committed consumer walks them: plain records indexed,
   * a transaction's held for its producer until its marker says which.
   */
  async rebuildIndex(): Promise<void> {
    const fresh = new KeyIndex();
    this.#rebuilding = fresh;
    const held = new Map<number, PendingKey[]>();
    try {
      const stable = this.inner.lastStableOffset;
      for await (const page of scanLog(this.inner, this.inner.logStartOffset, stable)) indexPage(fresh, page);
      await this.#walkUnstable(fresh, held, stable);
    } finally {
      this.#rebuilding = null;
    }
    this.#settleHeld(fresh, held);
    this.#index = fresh;
  }

  async #walkUnstable(index: KeyIndex, held: Map<number, PendingKey[]>, from: number): Promise<void> {
    let next = from;
    while (next < this.inner.logEndOffset) {
      const read = await this.inner.readBatches(next, { maxBytes: SCAN_READ_BYTES });
      if (read.bytes.length === 0 || read.nextOffset <= next) return;
      const { bytes } = read;
      for (let pos = 0; pos < bytes.length; pos += batchField.sizeBytes(bytes, pos)) {
        if (batchField.lastOffset(bytes, pos) < from) continue;
        const producerId = readInt64(bytes, pos + OFF_PRODUCER_ID);
        if (isControlBatch(bytes, pos)) {
          const entries = held.get(producerId) ?? [];
          held.delete(producerId);
          if (readTxnMarker(bytes, pos).commit)
            for (const e of entries) index.set(e.key, e.offset, e.tombstone);
          continue;
        }
        const plain = inflateBatch(bytes, pos);
        const records = decodeBatch(plain, 0).records.filter((r) => r.key !== null && r.offset >= from);
        if (!isTransactionalBatch(bytes, pos)) {
          for (const r of records) index.set(r.key!, r.offset, r.value === null);
          continue;
        }
        const entries = held.get(producerId) ?? [];
        for (const r of records)
          entries.push({ key: Buffer.from(r.key!), offset: r.offset, tombstone: r.value === null });
        held.set(producerId, entries);
      }
      next = read.nextOffset;
    }
  }

  /**
   * After a rebuild's walk: a transaction still open joins the live pending records; one decided
   * while the walk ran (its marker handled against the old tables) is settled here, by the
   * aborted-transaction index.
   */
  #settleHeld(index: KeyIndex, held: Map<number, PendingKey[]>): void {
    const open = new Set(this.inner.openTransactions().map((t) => t.producerId));
    for (const [producerId, entries] of held) {
      if (open.has(producerId)) {
        const live = this.#pending.get(producerId) ?? [];
        const seen = new Set(live.map((e) => e.offset));
        this.#pending.set(producerId, [...entries.filter((e) => !seen.has(e.offset)), ...live]);
        continue;
      }
      const first = entries[0]!.offset;
      const aborted = this.inner
        .abortedTransactions(first, first + 1)
        .some((t) => t.producerId === producerId && t.firstOffset <= first && first <= t.lastOffset);
      if (!aborted) for (const e of entries) index.set(e.key, e.offset, e.tombstone);
    }
  }

  /** The coordinator's marker: its producer's held records are indexed (COMMIT) or dropped (ABORT). */
  async appendTxnMarker(marker: TxnMarkerAppend): Promise<TxnMarkerResult> {
    const result = await this.inner.appendTxnMarker(marker);
    const entries = this.#pending.get(marker.producerId) ?? [];
    this.#pending.delete(marker.producerId);
    if (marker.commit) {
      for (const e of entries) {
        this.#index.set(e.key, e.offset, e.tombstone);
        this.#rebuilding?.set(e.key, e.offset, e.tombstone);
      }
    }
    return result;
  }

  append(records: readonly AppendRecord[], options?: AppendOptions): Promise<AppendResult> {
    const txnOf = options?.transactional && options.producer ? options.producer.producerId : null;
    return this.#indexed(records, this.inner.append(records, options), txnOf);
  }

  appendBatch(batch: Buffer, inflated?: Buffer): Promise<AppendResult> {
    // Inflated once (when the caller did not): the log validates the copy the index then walks.
    const payload = withPlainCopy({ batch, inflated });
    const txnOf = isTransactionalBatch(batch, 0) ? readInt64(batch, OFF_PRODUCER_ID) : null;
    return this.#indexed(payload, this.inner.appendBatch(batch, payload.inflated), txnOf);
  }

  /** `txnOf`: the producer whose transaction the records join (held until its marker), or null. */
  async #indexed(
    payload: ProducePayload,
    pending: Promise<AppendResult>,
    txnOf: number | null,
  ): Promise<AppendResult> {
    this.#inflight.add(pending);
    try {
      const result = await pending;
      // A duplicate (idempotent resend) wrote nothing: its records are indexed, maybe superseded since.
      if (result.duplicate) return result;
      if (txnOf !== null) {
        const held = this.#pending.get(txnOf) ?? [];
        forEachAppended(payload, result.baseOffset, ({ key, offset, tombstone }) => {
          // Copied: the key may be a view of the client's batch, and it is held past the request.
          if (key !== null) held.push({ key: Buffer.from(key), offset, tombstone });
        });
        this.#pending.set(txnOf, held);
        return result;
      }
      forEachAppended(payload, result.baseOffset, ({ key, offset, tombstone }) => {
        if (key === null) return;
        this.#index.set(key, offset, tombstone);
        this.#rebuilding?.set(key, offset, tombstone);
      });
      return result;
    } finally {
      this.#inflight.delete(pending);
    }
  }

  /**
   * The index frozen at a point every offset below `endOffset` is reflected in (no append in
   * flight), held until `release`: passes wait meanwhile, because a pass could remove a frozen
   * latest record superseded by a write after the freeze.
   */
  freeze(): Promise<{ index: FrozenKeyIndex; endOffset: number; release: () => void }> {
    return this.#whenQuiet(() => {
      this.#snapshots++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (--this.#snapshots === 0) for (const wake of this.#snapshotsDone.splice(0)) wake();
      };
      return { index: this.#index.freeze(), endOffset: this.inner.logEndOffset, release };
    });
  }

  /**
   * Every key's latest offset (tombstones included, ascending) as of `endOffset`, read from the
   * live index at a moment with no append in flight: one synchronous scan, so no copy of the
   * table and nothing held (what the Kafka `.latest` view keeps; see the worker's DESIGN.md).
   */
  latestOffsets(): Promise<{ offsets: Float64Array; endOffset: number }> {
    return this.#whenQuiet(() => ({
      offsets: this.#index.latestOffsets(),
      endOffset: this.inner.logEndOffset,
    }));
  }

  /**
   * `take()` run at a moment no append is in flight (the index is then exactly the log up to its
   * end), in the same synchronous step as the check, so no append can start in between.
   */
  async #whenQuiet<T>(take: () => T): Promise<T> {
    const deadline = Date.now() + FREEZE_WAIT_MS;
    while (this.#inflight.size > 0) {
      if (Date.now() > deadline) {
        throw new DataPlaneError(
          "PARTITION_UNAVAILABLE",
          `writes to this partition never paused for ${FREEZE_WAIT_MS} ms; snapshot again, or replay`,
        );
      }
      // Bounded: a stuck append must fail the snapshot at the deadline, not hang it.
      await Promise.race([
        Promise.allSettled([...this.#inflight]),
        new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1)),
      ]);
    }
    return take();
  }

  async clean(options?: { force?: boolean }): Promise<CleanResult> {
    while (this.#snapshots > 0) await new Promise<void>((wake) => this.#snapshotsDone.push(wake));
    this.#cleaning = true;
    try {
      const result = await this.inner.clean(options);
      if (result.cleaned) await this.rebuildIndex();
      return result;
    } finally {
      this.#cleaning = false;
    }
  }
}

/**
 * Where a log opened through `withKeyIndex` carries its index: a property, not an identity, so
 * views of the log that pass unknown members through (the durable-end view, `visible-log.ts`)
 * still find it.
 */
const KEY_INDEX = Symbol("keyIndex");

/** The key index of a log opened through `withKeyIndex` (or a view of one), if it was. */
export function keyIndexOf(log: HostedLog): KeyIndexedLog | undefined {
  return (log as HostedLog & { [KEY_INDEX]?: KeyIndexedLog })[KEY_INDEX];
}

/**
 * The log as the worker sees it: every member of the engine's log, with append and clean going
 * through the index first (a proxy, so members the engine gains later pass straight through).
 */
function indexedView(state: KeyIndexedLog): HostedLog {
  return new Proxy(state.inner, {
    get(target, prop) {
      if (prop === "append") return state.append.bind(state);
      if (prop === "appendBatch") return state.appendBatch.bind(state);
      if (prop === "appendTxnMarker") return state.appendTxnMarker.bind(state);
      if (prop === "clean") return state.clean.bind(state);
      if (prop === KEY_INDEX) return state;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function indexPage(index: KeyIndex, page: readonly LogRecord[]): void {
  for (const r of page) if (r.key !== null) index.set(r.key, r.offset, r.value === null);
}

/**
 * Wraps an opener so every hosted log carries its key index, built before the log serves: from
 * the persisted snapshot the opener is given when it fits the log, else by a scan of the log.
 */
export function withKeyIndex(openLog: OpenLog): OpenLog {
  return async (options) => {
    const state = new KeyIndexedLog(await openLog(options));
    const source = options.keyIndexSnapshot;
    let seeding: KeyIndexSeeding | null = null;
    if (source) {
      const bytes = await source.load().catch((error: unknown) => error as Error);
      if (bytes instanceof Error) seeding = { seeded: false, reason: `not fetched: ${bytes.message}` };
      else if (bytes === null) seeding = { seeded: false, reason: "none kept" };
      else seeding = await state.seedIndex(bytes);
    }
    if (!seeding?.seeded) await state.rebuildIndex();
    if (seeding) source?.report(seeding);
    return indexedView(state);
  };
}

/** The key index of a partition hosted with one (every compacted one); a missing one is a bug. */
export function requireKeyIndex(log: HostedLog): KeyIndexedLog {
  const state = keyIndexOf(log);
  if (state) return state;
  throw new DataPlaneError("INTERNAL", "this partition is hosted without a key index");
}
