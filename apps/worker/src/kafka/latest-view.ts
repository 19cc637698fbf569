import { createHash } from "node:crypto";
import { LATEST_VIEW_SUFFIX, latestViewBase } from "@lastword/api/topic-admin";
import { ErrorCode } from "@lastword/kafka-protocol";
import { batchesBefore, batchField } from "@lastword/record-batch";
import type { HostedLog } from "../hosting/hosted-log";
import { requireKeyIndex } from "../hosting/indexed-log";
import { hostedLogOf } from "../hosting/visible-log";
import type { CatalogTopic, KafkaCatalog } from "./kafka-catalog";
import { firstAtOrAfter, type KeepRule, keptBatch, passesWhole } from "./latest-batches";

/** A Kafka topic name as this listener resolves it: a topic, or the latest-value view of one. */
export interface ReadableTopic {
  topic: CatalogTopic;
  /** True for `<topic>.latest`: read-only, and Fetch below the view's end serves each key's latest. */
  view: boolean;
}

/** The view's name for a topic. */
export function latestViewName(topic: string): string {
  return `${topic}${LATEST_VIEW_SUFFIX}`;
}

/** Views exist for compacted topics only (a delete-only topic has no key index and no "latest"). */
export function hasLatestView(topic: CatalogTopic): boolean {
  return topic.config.cleanupPolicy.compact;
}

/**
 * The view's own topic id (Metadata v10+ lists one per name): derived from the topic's, so it is
 * the same on every worker and distinct from the topic's.
 */
export function latestViewTopicId(kafkaTopicId: string): string {
  const hex = createHash("sha256").update(`latest-view:${kafkaTopicId}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The tenant's topics that have a view: the compacted ones, less any whose view name a topic
 * already holds (one named before the suffix was reserved keeps its name; `readableTopic`
 * resolves the name to it too).
 */
export function viewedTopics(topics: readonly CatalogTopic[]): CatalogTopic[] {
  const names = new Set(topics.map((t) => t.name));
  return topics.filter((t) => hasLatestView(t) && !names.has(latestViewName(t.name)));
}

/** `name` as a topic of the tenant or as the view of one of its compacted topics; null when neither. */
export async function readableTopic(
  catalog: KafkaCatalog,
  tenantId: string,
  name: string,
): Promise<ReadableTopic | null> {
  const topic = await catalog.topic(tenantId, name);
  if (topic) return { topic, view: false };
  const base = latestViewBase(name);
  const viewed = base === null ? null : await catalog.topic(tenantId, base);
  return viewed && hasLatestView(viewed) ? { topic: viewed, view: true } : null;
}

/**
 * A write (Produce, DeleteRecords, CreatePartitions, config changes, DeleteTopics) addressed to a view of the
 * tenant's: TOPIC_AUTHORIZATION_FAILED, what Kafka answers a client writing where it may only
 * read, with the reason. Null for any other name.
 */
export async function viewWriteRefusal(
  catalog: KafkaCatalog,
  tenantId: string,
  name: string,
): Promise<{ errorCode: number; errorMessage: string } | null> {
  const found = await readableTopic(catalog, tenantId, name);
  if (!found?.view) return null;
  return {
    errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    errorMessage: `${name} is the read-only latest-value view of ${found.topic.name}: write to ${found.topic.name} itself.`,
  };
}

/** One partition's view: the key index frozen at `end`, reduced to the offsets it keeps. */
export interface LatestFreeze {
  /** The log the offsets were taken from (a partition hosted again gets a fresh freeze). */
  log: HostedLog;
  end: number;
  offsets: Float64Array;
}

/**
 * The frozen views of this worker's hosted logs, shared by every connection (held by the log
 * object, so a log closed and dropped takes its freeze along), and each connection's pins. A
 * connection's first Fetch of a partition on the view pins the shared freeze, refreshed first when
 * that fetch starts at or past its end or when more records were appended since than it keeps (the
 * dirty tail would then cost a cold start more than a new freeze); the pin holds for the
 * connection's life, so its consumer reads the view up to one end and then the real log from
 * there. A freeze scans the live index once and keeps a sorted offset array (8 bytes per key); it
 * does not hold the cleaner back (see the worker's DESIGN.md).
 */
export class LatestViews {
  readonly #shared = new WeakMap<HostedLog, Promise<LatestFreeze>>();

  /** The freeze this connection reads `partitionId` through. */
  async pinned(pins: Map<string, LatestFreeze>, partitionId: string, log: HostedLog, fetchOffset: number) {
    const pin = pins.get(partitionId);
    if (pin && pin.log === hostedLogOf(log)) return pin;
    const freeze = await this.#fresh(log, fetchOffset);
    pins.set(partitionId, freeze);
    return freeze;
  }

  async #fresh(log: HostedLog, fetchOffset: number): Promise<LatestFreeze> {
    // Keyed on the hosted log, not the durable read view each read gets around it.
    const hosted = hostedLogOf(log);
    const pending = this.#shared.get(hosted);
    const shared = await pending?.catch(() => null);
    if (shared && !stale(shared, log, fetchOffset)) return shared;
    // Connections that found it stale together share one new freeze.
    const current = this.#shared.get(hosted);
    if (current !== pending && current) return current;
    const next = freezeView(log);
    this.#shared.set(hosted, next);
    next.catch(() => {
      if (this.#shared.get(hosted) === next) this.#shared.delete(hosted);
    });
    return next;
  }
}

function stale(freeze: LatestFreeze, log: HostedLog, fetchOffset: number): boolean {
  return fetchOffset >= freeze.end || log.logEndOffset - freeze.end > freeze.offsets.length;
}

/**
 * Nothing is held after the offsets are taken: a pass may then remove a frozen offset, but only one
 * superseded after the freeze (its successor is in the tail) or a tombstone past its horizon, and
 * the reads skip what is gone.
 */
async function freezeView(log: HostedLog): Promise<LatestFreeze> {
  // `log` is the durable read view: its end, read before the index is taken, is committed.
  const durableEnd = log.logEndOffset;
  const { offsets, endOffset } = await requireKeyIndex(log).latestOffsets();
  // The live index may run past it while a commit or an upload lags; the view then ends at the
  // durable end, and a key whose latest record lies past it is left to the tail, where that record
  // is served once committed (within one hosted log every append commits or the log is dropped,
  // and a freeze goes with its log). So the view never shows an offset a takeover could lose.
  const end = Math.min(endOffset, durableEnd);
  return { log: hostedLogOf(log), end, offsets: offsets.subarray(0, firstAtOrAfter(offsets, end)) };
}

/**
 * The most one view read fills for a Fetch: a client asking more for a partition gets this much (it
 * asks again), and a Fetch allocates no more than this per partition.
 */
const VIEW_FETCH_BYTES_MAX = 8 << 20;

/**
 * The view's records from `from` (below `freeze.end`) within `maxBytes` (the first batch whole),
 * read into one buffer: each read starts at the next kept offset and takes what the room left
 * allows, the log store sizing it by the batch headers (it stops before a batch that would not fit).
 * A batch whose records are all kept stays where it was read, as stored; a batch holding none of
 * them is dropped and the ones after it move up; any other is rebuilt in its place with the kept
 * records (`keptBatch`). A new read is made only while the room left can take the largest batch
 * met so far, so no batch is read only to be left out. When nothing is kept in [from, end), or
 * nothing of it is stored any more, the real log from the end (empty until something is appended
 * there: the client long-polls at `from`).
 */
export async function readLatest(
  log: HostedLog,
  freeze: LatestFreeze,
  from: number,
  maxBytes: number,
  nowMs: number,
  readTail: (from: number) => Promise<Buffer>,
): Promise<Buffer> {
  const view = new ViewRead(freeze, { end: freeze.end, nowMs }, Math.min(maxBytes, VIEW_FETCH_BYTES_MAX));
  view.i = firstAtOrAfter(freeze.offsets, Math.max(from, log.logStartOffset));
  while (view.wantsMore()) {
    const read = await log.readBatches(view.nextOffset, { into: view.room() });
    const cut = batchesBefore(read.bytes, freeze.end);
    // Nothing stored is left in [next kept offset, end): a pass removed the rest of the view (each
    // such record was superseded in the tail, which is where the client goes next).
    if (cut.length === 0) break;
    const alone = view.place(read.bytes.subarray(0, cut.length));
    if (alone) return alone;
  }
  return view.used === 0 ? readTail(freeze.end) : view.out.subarray(0, view.used);
}

/** One Fetch's view read: the kept offsets still to serve and the buffer the batches go to. */
class ViewRead {
  readonly out: Buffer;
  used = 0;
  /** Index of the next kept offset to serve. */
  i = 0;
  #largest = 0;
  #stopped = false;

  constructor(
    private readonly freeze: LatestFreeze,
    private readonly rule: KeepRule,
    bytes: number,
  ) {
    this.out = Buffer.allocUnsafeSlow(Math.max(1, bytes));
  }

  get nextOffset(): number {
    return this.freeze.offsets[this.i]!;
  }

  wantsMore(): boolean {
    const { offsets, end } = this.freeze;
    if (this.#stopped || this.i >= offsets.length || offsets[this.i]! >= end) return false;
    return this.used === 0 || this.out.length - this.used >= this.#largest;
  }

  room(): Buffer {
    return this.out.subarray(this.used);
  }

  /**
   * Serves the batches of one read (in `room()`, or in a buffer of its own when its first batch
   * did not fit there). Returns a batch to answer alone: a first batch larger than the buffer.
   */
  place(read: Buffer): Buffer | null {
    const inPlace = read.buffer === this.out.buffer && read.byteOffset === this.out.byteOffset + this.used;
    if (!inPlace) return this.used === 0 ? this.#alone(read) : this.#stop();
    const { offsets } = this.freeze;
    const start = this.used;
    for (let pos = 0; pos < read.length; ) {
      const size = batchField.sizeBytes(read, pos);
      this.#largest = Math.max(this.#largest, size);
      const kept = this.#keptIn(read, pos);
      if (kept > 0) {
        const at = start + pos;
        if (passesWhole(read, pos, kept, this.rule)) {
          if (at !== this.used) this.out.copyWithin(this.used, at, at + size);
          this.used += size;
        } else {
          const batch = keptBatch(read, pos, offsets.subarray(this.i - kept, this.i), this.rule);
          // A rebuilt batch may be larger than its compressed original: it never overwrites the
          // batches after it in this read.
          if (batch && this.used + batch.length > at + size) return this.used === 0 ? batch : this.#stop();
          if (batch) this.used += batch.copy(this.out, this.used);
        }
      }
      pos += size;
    }
    return null;
  }

  /** How many kept offsets the batch at `pos` holds, moving `i` past them. */
  #keptIn(bytes: Buffer, pos: number): number {
    const { offsets } = this.freeze;
    // Offsets below the batch are records a pass removed since the freeze: not this batch's.
    const base = batchField.baseOffset(bytes, pos);
    while (this.i < offsets.length && offsets[this.i]! < base) this.i++;
    const first = this.i;
    const last = batchField.lastOffset(bytes, pos);
    while (this.i < offsets.length && offsets[this.i]! <= last) this.i++;
    return this.i - first;
  }

  /** The read's single batch, larger than the buffer: served alone (KIP-74), or skipped when nothing of it is kept. */
  #alone(read: Buffer): Buffer | null {
    const size = batchField.sizeBytes(read, 0);
    const kept = this.#keptIn(read, 0);
    if (kept === 0) return null;
    if (passesWhole(read, 0, kept, this.rule)) return read.subarray(0, size);
    return keptBatch(read, 0, this.freeze.offsets.subarray(this.i - kept, this.i), this.rule);
  }

  #stop(): null {
    this.#stopped = true;
    return null;
  }
}
