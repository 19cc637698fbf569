import { randomInt } from "node:crypto";
import { batchCompression, batchField, rebuiltBatchBound } from "@lastword/record-batch";
import type { CleanResult } from "./clean-result";
import type { CleanableLog } from "./cleanable-log";
import type { CleanableRange } from "./cleanable-range";
import { CleanedSegmentWriter } from "./cleaned-segment-writer";
import {
  FilterCounters,
  type FilteredBatch,
  filterBatch,
  mapBatch,
  type RemovedTombstone,
  type RetainRule,
} from "./cleaner-batch";
import type { CleanerCheckpoint } from "./cleaner-checkpoint";
import { filterCompressedBatch } from "./cleaner-compressed";
import { reachFaultPoint } from "./cleaner-fault-points";
import { CleanerSegmentReader } from "./cleaner-segment-reader";
import { CleanerTxns } from "./cleaner-txns";
import { fsyncDirectory } from "./fsync-directory";
import {
  acquireOffsetMap,
  OFFSET_MAP_BYTES_PER_SLOT,
  type OffsetMap,
  offsetMapSlots,
  releaseOffsetMap,
} from "./offset-map";
import { type Segment, segmentLimits } from "./segment";
import { DELETED_SUFFIX } from "./segment-swap";

// One cleaning round over a snapshot of the log's segments (Kafka's Cleaner.doClean).

const INT32_MAX = 2147483647;
const OFFSET_INDEX_ENTRY_BYTES = 8;
const TIME_INDEX_ENTRY_BYTES = 12;

/** An emptied group's writer, carried into the next group together with the segments it replaces. */
interface Carry {
  writer: CleanedSegmentWriter;
  members: readonly Segment[];
}

/** The log changed under the pass (closed, or a segment removed); the round stops, unchecked. */
export class PassAborted extends Error {}

/**
 * A targeted rewrite instead of a round: only the segments at `bases`, each on its own, with a map
 * holding one key at `offset` (its records below it go, as a round would remove them).
 */
export interface PassTarget {
  key: Buffer;
  offset: number;
  bases: ReadonlySet<number>;
}

/**
 * Kafka's groupSegmentsBySize: consecutive segments whose log bytes fit `segment.bytes`, whose
 * index bytes fit `segment.index.bytes`, and whose offsets span ≤ Int.MaxValue from the group base
 * (the span is not checked for an empty candidate, KAFKA-12889). Each group becomes one segment.
 */
export function groupSegmentsBySize(
  segments: readonly Segment[],
  maxBytes: number,
  maxIndexBytes: number,
  firstUncleanableOffset: number,
): Segment[][] {
  const groups: Segment[][] = [];
  let i = 0;
  while (i < segments.length) {
    const first = segments[i++]!;
    const group = [first];
    let logBytes = first.sizeBytes;
    let indexBytes = first.offsetIndex.sizeBytes;
    let timeBytes = first.timeIndex.entries * TIME_INDEX_ENTRY_BYTES;
    while (i < segments.length) {
      const next = segments[i]!;
      const estimatedLast = (segments[i + 1]?.baseOffset ?? firstUncleanableOffset) - 1;
      const fits =
        logBytes + next.sizeBytes <= maxBytes &&
        indexBytes + next.offsetIndex.entries * OFFSET_INDEX_ENTRY_BYTES <= maxIndexBytes &&
        timeBytes + next.timeIndex.entries * TIME_INDEX_ENTRY_BYTES <= maxIndexBytes &&
        (next.sizeBytes === 0 || estimatedLast - first.baseOffset <= INT32_MAX);
      if (!fits) break;
      group.push(next);
      logBytes += next.sizeBytes;
      indexBytes += next.offsetIndex.sizeBytes;
      timeBytes += next.timeIndex.entries * TIME_INDEX_ENTRY_BYTES;
      i++;
    }
    groups.push(group);
  }
  return groups;
}

/** Records in the segments overlapping [from, to): an upper bound on the keys a pass can map. */
function recordsOverlapping(segments: readonly Segment[], from: number, to: number): number {
  let records = 0;
  for (let i = 0; i + 1 < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.baseOffset < to && segments[i + 1]!.baseOffset > from) records += segment.recordCount;
  }
  return records;
}

export class CleaningPass {
  private readonly segments: readonly Segment[];
  private readonly counters = new FilterCounters();
  /** Tombstones of the groups swapped in so far: only those really left the log. */
  private readonly removedTombstones: RemovedTombstone[] = [];

  constructor(
    private readonly log: CleanableLog,
    private readonly range: CleanableRange,
    private readonly startedAtMs: number,
    private readonly result: CleanResult,
    private readonly target: PassTarget | null = null,
  ) {
    this.segments = [...log.segmentObjects];
  }

  /** Runs the round; returns the checkpoint to write. Throws PassAborted if the log changed. */
  async execute(): Promise<CleanerCheckpoint> {
    if (this.target) return this.executeTarget(this.target);
    const { firstDirtyOffset, firstUncleanableOffset } = this.range;
    const expectedKeys = recordsOverlapping(this.segments, firstDirtyOffset, firstUncleanableOffset);
    const map = acquireOffsetMap(this.log.dedupeBufferBytes, randomInt(2 ** 31), expectedKeys);
    try {
      const latestOffset = await this.buildOffsetMap(map);
      // Against the budget's slots, as Kafka reports it, even when a smaller map was enough.
      this.result.mapUtilization = map.size / offsetMapSlots(this.log.dedupeBufferBytes);
      this.result.mapBytes = map.slots * OFFSET_MAP_BYTES_PER_SLOT;
      const endOffset = latestOffset + 1;
      const config = this.log.config;
      const rule: RetainRule = {
        map,
        latestOffset,
        nowMs: this.startedAtMs,
        newDeleteHorizonMs: Math.min(this.startedAtMs + config.deleteRetentionMs, Number.MAX_SAFE_INTEGER),
        roundEndOffset: firstUncleanableOffset,
        producerLastBatchEnds: this.log.producerLastBatchEnds(),
        txns: this.txns(false),
      };
      const closed = this.segments.slice(0, -1).filter((segment) => segment.baseOffset < endOffset);
      const groups = groupSegmentsBySize(
        closed,
        config.segmentBytes,
        config.segmentIndexBytes,
        firstUncleanableOffset,
      );
      let carry: Carry | null = null;
      for (let g = 0; g < groups.length; g++) {
        carry = await this.cleanGroup(
          groups[g]!,
          rule,
          carry,
          this.mayCarryInto(groups, g, firstUncleanableOffset),
        );
      }
      return { firstDirtyOffset: endOffset, earliestDeleteHorizonMs: this.counters.earliestDeleteHorizonMs };
    } finally {
      releaseOffsetMap(map);
      this.tally();
    }
  }

  /**
   * The targeted rewrite: each chosen closed segment below the uncleanable offset is filtered on
   * its own against a one-key map and swapped in if anything changed. The checkpoint is the one the
   * log had: the dirty section is still the next round's.
   */
  private async executeTarget(target: PassTarget): Promise<CleanerCheckpoint> {
    const { firstDirtyOffset, firstUncleanableOffset } = this.range;
    const map = acquireOffsetMap(this.log.dedupeBufferBytes, randomInt(2 ** 31), 1);
    try {
      map.put(target.key, 0, target.key.length, target.offset);
      const config = this.log.config;
      const rule: RetainRule = {
        map,
        latestOffset: target.offset,
        nowMs: this.startedAtMs,
        newDeleteHorizonMs: Math.min(this.startedAtMs + config.deleteRetentionMs, Number.MAX_SAFE_INTEGER),
        roundEndOffset: firstUncleanableOffset,
        producerLastBatchEnds: this.log.producerLastBatchEnds(),
        // It reads only some segments: no marker can be judged by them.
        txns: this.txns(true),
      };
      for (let i = 0; i + 1 < this.segments.length; i++) {
        const segment = this.segments[i]!;
        if (
          !target.bases.has(segment.baseOffset) ||
          this.segments[i + 1]!.baseOffset > firstUncleanableOffset
        )
          continue;
        await this.cleanGroup([segment], rule, null, false);
      }
      return { firstDirtyOffset, earliestDeleteHorizonMs: this.counters.earliestDeleteHorizonMs };
    } finally {
      releaseOffsetMap(map);
      this.tally();
    }
  }

  /** The transactions as the log knows them now (the aborted ones; open ones lie past the round). */
  private txns(keepMarkers: boolean): CleanerTxns {
    return new CleanerTxns(this.log.abortedTxns.all(), keepMarkers);
  }

  /** Earliest horizon seen so far, for a caller whose pass was aborted after some swaps. */
  get earliestDeleteHorizonMs(): number | null {
    return this.counters.earliestDeleteHorizonMs;
  }

  private tally(): void {
    const c = this.counters;
    this.result.recordsRead = c.recordsRead;
    this.result.recordsRemoved = c.recordsRemoved;
    this.result.removedTombstones = this.removedTombstones;
    this.result.tombstonesRemoved = this.removedTombstones.length;
    this.result.keylessRecordsRemoved = c.keylessRemoved;
    this.result.abortedRecordsRemoved = c.abortedRecordsRemoved;
    this.result.markersRemoved = c.markersRemoved;
  }

  /**
   * Kafka's buildOffsetMap over [firstDirty, firstUncleanable): returns the map's latest offset —
   * the last offset put when the map filled, else the offset before the first uncleanable one.
   */
  private async buildOffsetMap(map: OffsetMap): Promise<number> {
    const from = this.range.firstDirtyOffset;
    const to = this.range.firstUncleanableOffset;
    let latest = from - 1;
    const txns = this.txns(true);
    for (let i = 0; i + 1 < this.segments.length; i++) {
      const segment = this.segments[i]!;
      const nextBase = this.segments[i + 1]!.baseOffset;
      if (segment.baseOffset >= to) break;
      if (nextBase <= from) continue;
      this.assertOpen();
      const start = segment.baseOffset <= from ? segment.lookup(from) : 0;
      // CRC-checked here too: a corrupt record count or length must never steer the scan.
      const reader = new CleanerSegmentReader(segment, start, undefined, true);
      try {
        for (let chunk = await reader.nextChunk(); chunk !== null; chunk = await reader.nextChunk()) {
          const buf = chunk.buf;
          for (let at = chunk.start; at < chunk.end; at += batchField.sizeBytes(buf, at)) {
            const lastOffset = batchField.lastOffset(buf, at);
            if (lastOffset < from) continue;
            this.result.mapBytesRead += batchField.sizeBytes(buf, at);
            this.result.mapRecordsRead += batchField.recordCount(buf, at);
            const progress = mapBatch(buf, at, map, from, txns);
            if (progress.full) return Math.max(latest, progress.lastPut);
            latest = lastOffset;
          }
          this.assertOpen();
        }
      } finally {
        reader.close();
      }
      latest = Math.max(latest, nextBase - 1);
    }
    return latest;
  }

  /** Stops the pass early once the log is closed (swaps re-check everything under the mutex). */
  private assertOpen(): void {
    if (this.log.isClosed) throw new PassAborted("the log was closed during the pass");
  }

  private assertLive(sources: readonly Segment[]): void {
    this.assertOpen();
    const live = this.log.segmentObjects;
    for (const segment of sources) {
      if (!live.includes(segment)) {
        throw new PassAborted(`segment ${segment.baseOffset} was removed during the pass`);
      }
    }
  }

  /**
   * Whether group `g`'s output, if empty, may merge into group g + 1's: the merged segment must keep
   * relative offsets within Int.MaxValue of its base (Kafka's group span rule).
   */
  private mayCarryInto(
    groups: readonly (readonly Segment[])[],
    g: number,
    firstUncleanableOffset: number,
  ): boolean {
    const next = groups[g + 1];
    if (next === undefined) return false;
    const last = next[next.length - 1]!;
    const end = this.segments[this.segments.indexOf(last) + 1]?.baseOffset ?? firstUncleanableOffset;
    return end - 1 - groups[g]![0]!.baseOffset <= INT32_MAX;
  }

  /**
   * Recopies one group into a `.cleaned` segment and swaps it in; leaves unchanged groups alone.
   * Beyond Kafka: a group whose records all went is not installed as an empty segment (which
   * Kafka merges only in a later round); its writer carries on into the next group, so one
   * round leaves no empty segment behind and a second round has nothing left to regroup.
   */
  private async cleanGroup(
    group: readonly Segment[],
    rule: RetainRule,
    carry: Carry | null,
    mayCarry: boolean,
  ): Promise<Carry | null> {
    const members = carry === null ? group : [...carry.members, ...group];
    const limits = segmentLimits(this.log.config.segmentIndexBytes);
    const writer =
      carry?.writer ?? new CleanedSegmentWriter(this.log.dir, group[0]!.baseOffset, limits, this.startedAtMs);
    let keep = false;
    try {
      // Empty segments kept by earlier rounds are merged away, as Kafka's regrouping does.
      if (group.length > 1 && group.some((segment) => segment.sizeBytes === 0) && !writer.started)
        writer.start();
      const offset = members.length - group.length;
      for (let s = 0; s < group.length; s++) await this.filterSegment(members, offset + s, writer, rule);
      this.result.segmentsRead += group.length;
      if (!writer.started) return null;
      if (writer.isEmpty && mayCarry) {
        keep = true;
        return { writer, members };
      }
      const cleaned = await writer.finish();
      reachFaultPoint("cleaned-synced");
      const after = this.segments[this.segments.indexOf(members[members.length - 1]!) + 1]!;
      writer.recordRange(after.baseOffset);
      reachFaultPoint("range-recorded");
      await this.swap(writer, members);
      keep = true;
      for (const tombstone of this.counters.takeRemovedTombstones()) this.removedTombstones.push(tombstone);
      this.result.bytesWritten += cleaned.sizeBytes;
      this.result.segmentsWritten++;
      return null;
    } finally {
      if (!keep) writer.discard();
    }
  }

  /** Filters the batches of `group[s]` into the writer, which starts at the first changed batch. */
  private async filterSegment(
    group: readonly Segment[],
    s: number,
    writer: CleanedSegmentWriter,
    rule: RetainRule,
  ): Promise<void> {
    this.assertOpen();
    const reader = new CleanerSegmentReader(group[s]!, 0, undefined, true);
    try {
      for (let chunk = await reader.nextChunk(); chunk !== null; chunk = await reader.nextChunk()) {
        const buf = chunk.buf;
        for (let at = chunk.start; at < chunk.end; at += batchField.sizeBytes(buf, at)) {
          const size = batchField.sizeBytes(buf, at);
          this.result.bytesRead += size;
          const out = this.filterInto(writer, buf, at, size, rule);
          if (writer.started) writer.commit(out.bytes);
          else if (out.changed) await this.startWriting(group, s, chunk.position + at, writer, out.bytes);
        }
        this.assertOpen();
      }
    } finally {
      reader.close();
    }
  }

  /** Filters one batch to `writer.buf[writer.length]`, with room reserved for what it writes. */
  private filterInto(
    writer: CleanedSegmentWriter,
    buf: Buffer,
    at: number,
    size: number,
    rule: RetainRule,
  ): FilteredBatch {
    if (batchCompression(buf, at) === 0) {
      writer.reserve(rebuiltBatchBound(size, batchField.recordCount(buf, at)));
      return filterBatch(buf, at, writer.buf, writer.length, rule, this.counters);
    }
    // Recompressed output has no bound known before it is written: it is made, then copied in.
    const out = filterCompressedBatch(buf, at, rule, this.counters);
    writer.reserve(out.bytes);
    out.batch.copy(writer.buf, writer.length);
    return out;
  }

  /**
   * First change in the group: the unchanged batches before it were not kept, so the writer gets
   * them (copied byte for byte from the sources) ahead of the changed batch's `bytes` of output.
   */
  private async startWriting(
    group: readonly Segment[],
    s: number,
    position: number,
    writer: CleanedSegmentWriter,
    bytes: number,
  ): Promise<void> {
    const held = Buffer.from(writer.buf.subarray(writer.length, writer.length + bytes));
    writer.start();
    for (let i = 0; i <= s; i++) {
      const reader = new CleanerSegmentReader(group[i]!, 0, i === s ? position : undefined, false);
      try {
        for (let chunk = await reader.nextChunk(); chunk !== null; chunk = await reader.nextChunk()) {
          const length = chunk.end - chunk.start;
          writer.reserve(length);
          chunk.buf.copy(writer.buf, writer.length, chunk.start, chunk.end);
          writer.commit(length);
        }
      } finally {
        reader.close();
      }
    }
    writer.reserve(held.length);
    held.copy(writer.buf, writer.length);
    writer.commit(held.length);
  }

  /**
   * Kafka's replaceSegments, under the log's mutex: commit (`.cleaned` → `.swap`, fsync dir),
   * swap the in-memory list, retire the old files as `.deleted`, give the new segment its live
   * names, fsync the directory, and delete the old files after file.delete.delay.ms.
   */
  private async swap(writer: CleanedSegmentWriter, group: readonly Segment[]): Promise<void> {
    const dir = this.log.dir;
    await this.log.mutex.run(() => {
      this.assertLive(group);
      writer.promote();
      reachFaultPoint("promoted");
      fsyncDirectory(dir);
      reachFaultPoint("promotion-synced");
      const retired: string[] = [];
      this.log.replaceSegments([writer.segmentRef()], group);
      reachFaultPoint("replaced-in-memory");
      for (const old of group) {
        old.renameTo(DELETED_SUFFIX);
        retired.push(old.filePath("log"), old.filePath("index"), old.filePath("timeindex"));
        reachFaultPoint("old-segment-retired");
      }
      writer.install();
      reachFaultPoint("installed");
      fsyncDirectory(dir);
      reachFaultPoint("swap-synced");
      this.log.scheduleFileDeletion(retired);
    });
  }
}
