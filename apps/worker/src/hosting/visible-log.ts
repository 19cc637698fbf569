import type { BatchesRead } from "@lastword/logstore";
import { batchesBefore } from "@lastword/record-batch";
import type { HostedLog, LogRecord } from "./hosted-log";

/**
 * A read view of `log` that ends at `end` (the partition's committed durable end): its
 * `highWatermark` (what readers are told is the end) and `logEndOffset` are at most `end`, and
 * reads return no batch or record at or above it. What readers
 * (fetch, Kafka Fetch, list offsets, snapshots) get while appends past `end` wait for their commit,
 * so nothing is served that a takeover could still lose. Everything else is the log's own.
 */
/** The proxy answers the log it views under this key (`hostedLogOf`). */
const VIEWED = Symbol("viewed log");

/**
 * The hosted log behind a read view (or the log itself): what per-log caches key on, since every
 * read under object durability gets a new view of the same log.
 */
export function hostedLogOf(log: HostedLog): HostedLog {
  return (log as HostedLog & { [VIEWED]?: HostedLog })[VIEWED] ?? log;
}

export function visibleUpTo(log: HostedLog, end: number): HostedLog {
  if (end >= log.logEndOffset) return log;
  const readBatches: HostedLog["readBatches"] = async (from, options) => {
    if (from >= end) return { bytes: Buffer.alloc(0), nextOffset: from };
    return readBelow(await log.readBatches(from, options), end);
  };
  const read: HostedLog["read"] = async (from, options) => {
    if (from >= end) return [];
    const records = await log.read(from, options);
    return records.filter((record: LogRecord) => record.offset < end);
  };
  return new Proxy(log, {
    get(target, prop) {
      if (prop === VIEWED) return target;
      if (prop === "highWatermark") return Math.min(target.highWatermark, end);
      if (prop === "lastStableOffset") return Math.min(target.lastStableOffset, end);
      if (prop === "logEndOffset") return end;
      if (prop === "readBatches") return readBatches;
      if (prop === "read") return read;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The whole batches of `read` that start below `end` (commits end on batch boundaries, and so do
 * segments): what a read past a committed end or a segment's end may keep.
 */
export function readBelow(read: BatchesRead, end: number): BatchesRead {
  if (read.nextOffset <= end) return read;
  const bytes = read.bytes.subarray(0, batchesBefore(read.bytes, end).length);
  // Aborted transactions named for batches cut off are harmless: a consumer drops only records it got.
  return read.abortedTransactions === undefined
    ? { bytes, nextOffset: end }
    : { bytes, nextOffset: end, abortedTransactions: read.abortedTransactions };
}
