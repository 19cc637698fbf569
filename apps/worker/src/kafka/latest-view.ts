import { createHash } from "node:crypto";
import { LATEST_VIEW_SUFFIX, latestViewBase } from "@lastword/api/topic-admin";
import { ErrorCode } from "@lastword/kafka-protocol";
import { batchesBefore, batchField } from "@lastword/record-batch";
import { hostedLogOf } from "../durability/visible-log";
import type { HostedLog } from "../hosting/hosted-log";
import { requireKeyIndex } from "../hosting/indexed-log";
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
  const { offsets, endOffset } = await requireKeyIndex(log).latestOffsets();
  return { log: hostedLogOf(log), end: endOffset, offsets };
}

/** Bytes per stored read while a view is served: a dirty log keeps few records of each read. */
const VIEW_READ_BYTES = 256 << 10;

/**
 * The view's records from `from` (below `freeze.end`) within `maxBytes` (the first batch whole):
 * stored batches read from each kept offset on, sent as stored when every record in them is kept,
 * rebuilt with the kept ones otherwise; superseded stretches between kept offsets are not read.
 * When nothing is kept in [from, end), or nothing of it is stored any more, the real log from the
 * end (empty until something is appended there: the client long-polls at `from`).
 */
export async function readLatest(
  log: HostedLog,
  freeze: LatestFreeze,
  from: number,
  maxBytes: number,
  nowMs: number,
  readTail: (from: number) => Promise<Buffer>,
): Promise<Buffer> {
  const rule: KeepRule = { end: freeze.end, nowMs };
  const { offsets, end } = freeze;
  let i = firstAtOrAfter(offsets, Math.max(from, log.logStartOffset));
  const chunks: Buffer[] = [];
  let used = 0;
  while (i < offsets.length && offsets[i]! < end && (chunks.length === 0 || used < maxBytes)) {
    const read = await log.readBatches(offsets[i]!, {
      maxBytes: Math.max(1, Math.min(VIEW_READ_BYTES, maxBytes - used)),
    });
    const cut = batchesBefore(read.bytes, end);
    // Nothing stored is left in [offsets[i], end): a pass removed the rest of the view (each such
    // record was superseded in the tail, which is where the client goes next).
    if (cut.length === 0) break;
    for (let pos = 0; pos < cut.length; pos += batchField.sizeBytes(read.bytes, pos)) {
      const last = batchField.lastOffset(read.bytes, pos);
      // Offsets below the batch are records a pass removed since the freeze: not this batch's.
      while (i < offsets.length && offsets[i]! < batchField.baseOffset(read.bytes, pos)) i++;
      const first = i;
      while (i < offsets.length && offsets[i]! <= last) i++;
      if (i === first) continue;
      const whole = passesWhole(read.bytes, pos, i - first, rule);
      const size = batchField.sizeBytes(read.bytes, pos);
      const batch = whole
        ? read.bytes.subarray(pos, pos + size)
        : keptBatch(read.bytes, pos, offsets.subarray(first, i), rule);
      if (!batch) continue;
      if (chunks.length > 0 && used + batch.length > maxBytes) return Buffer.concat(chunks);
      chunks.push(batch);
      used += batch.length;
    }
  }
  if (chunks.length === 0) return readTail(end);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}
