import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "@lastword/logstore";
import type { ObjectStore } from "@lastword/object-store";
import { localRetention } from "@lastword/topic-config";
import type { CrashHook } from "../fault-points";
import type { HostedLog, LogSegment } from "../hosting/hosted-log";
import { keyIndexOf } from "../hosting/indexed-log";
import type { PartitionHost } from "../hosting/partition-host";
import type { PartitionSlot } from "../hosting/partition-slot";
import { readBelow } from "../hosting/visible-log";
import type { Logger } from "../logger";
import {
  COMMIT_PREFIX,
  KEY_FILTER_SUFFIX,
  KEY_INDEX_SUFFIX,
  SEGMENT_SIDECAR_SUFFIXES,
  SNAPSHOT_SUFFIX,
  segmentObjectKey,
  tailObjectKey,
} from "./bucket-layout";
import type { CommitWindow } from "./commit-window";
import { manifestStart } from "./durable-partitions";
import type { ManifestRepository, ManifestRow, PartitionManifest } from "./manifest.repository";
import type { ChangeOutcome, ManifestChangesRepository } from "./manifest-changes.repository";
import { encodeSegmentRef, type SegmentObjectStats } from "./segment-objects";
import { uploadSegmentFile } from "./segment-transfer";

export interface SegmentTieringOptions {
  store: ObjectStore;
  manifest: Pick<ManifestRepository, "load">;
  changes: Pick<ManifestChangesRepository, "replaceRange" | "trimBelow">;
  window: Pick<CommitWindow, "advance" | "durable">;
  host: PartitionHost;
  logger: Logger;
  clock: Clock;
  /** How old a partition's rows in shared commit objects get before they are consolidated (default 30 s). */
  consolidateAfterMs?: number;
  /** A segment fetched back for a reader stays at least this long before time-based eviction (default 60 s). */
  fetchedKeepMs?: number;
  /** Every hosted partition is looked at this often even when nothing asked for it (default 60 s). */
  fullScanMs?: number;
  /** How often due partitions are synced (default 1 s). */
  intervalMs?: number;
  /** Tests only: crash points (fault-points.ts). */
  fault?: CrashHook;
}

/** What this worker knows a local segment file holds (its file identity → SHA-256). */
interface KnownFile {
  identity: string;
  sha256: string;
}

const MAX_CONSOLIDATION_BYTES = 64 << 20;
/** How soon a sync that stopped short is tried again. */
const RETRY_SHORT_MS = 1_000;

/**
 * Makes object storage follow each hosted partition's local log, one partition at a time inside
 * its `background` turn (never during its cleaner pass or retention):
 * 1. offsets below the log start are trimmed from the manifest (retention, deleteRecords);
 * 2. every closed segment whose committed bytes are not in a segment object exactly as on disk is
 *    uploaded (with its producer snapshot) and replaces the rows of its range in one
 *    epoch-checked transaction — the commit rows after a roll, the old segment rows after a
 *    cleaner pass;
 * 3. the active segment's rows in shared commit objects are consolidated into one object of the
 *    partition's own once old enough, so shared objects stay short-lived;
 * 4. uploaded segments beyond `local.retention.bytes` / `local.retention.ms` are evicted from the
 *    disk (fetched back when read).
 * Replaced objects are queued as superseded and deleted after a grace period (superseded-objects.ts).
 */
export class SegmentTiering {
  readonly #o: SegmentTieringOptions;
  readonly #due = new Map<string, number>();
  /** Partitions whose shared commit rows are consolidated on their next sync whatever their age. */
  readonly #eager = new Set<string>();
  readonly #known = new Map<string, Map<number, KnownFile>>();
  /** Segments this worker evicted, by partition: seen local again means a reader fetched it back. */
  readonly #evicted = new Map<string, Map<number, number | null>>();
  readonly #consolidateAfterMs: number;
  readonly #fetchedKeepMs: number;
  readonly #fullScanMs: number;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #lastFullScan = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(options: SegmentTieringOptions) {
    this.#o = options;
    this.#consolidateAfterMs = options.consolidateAfterMs ?? 30_000;
    this.#fetchedKeepMs = options.fetchedKeepMs ?? 60_000;
    this.#fullScanMs = options.fullScanMs ?? 60_000;
    this.#intervalMs = options.intervalMs ?? 1_000;
  }

  /** Asks for a sync of the partition at `atMs` (now by default); an earlier request wins. */
  /** What an erasure proof waits for here (a sync's cadence, shared objects' consolidation). */
  get proofTimings(): { syncIntervalMs: number; consolidateAfterMs: number } {
    return { syncIntervalMs: this.#intervalMs, consolidateAfterMs: this.#consolidateAfterMs };
  }

  touch(partitionId: string, atMs = this.#o.clock.now()): void {
    const current = this.#due.get(partitionId);
    if (current === undefined || atMs < current) this.#due.set(partitionId, atMs);
  }

  /**
   * An erasure waits for a commit object these partitions share with it: consolidate their rows in
   * shared commit objects on their next sync, however young, so the object can be deleted.
   */
  consolidateNow(partitionIds: readonly string[]): void {
    for (const id of partitionIds) {
      if (!this.#o.host.slot(id)) continue;
      this.#eager.add(id);
      this.touch(id);
    }
  }

  /** A partition's commit rows were committed: consolidate them once they are old enough. */
  committed(partitionId: string): void {
    this.touch(partitionId, this.#o.clock.now() + this.#consolidateAfterMs);
  }

  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => {
      if (this.#running) return;
      this.#running = this.runDue().finally(() => {
        this.#running = null;
      });
    }, this.#intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  /** Syncs every partition that is due (all hosted ones once per full-scan period). */
  async runDue(): Promise<void> {
    const now = this.#o.clock.now();
    if (now - this.#lastFullScan >= this.#fullScanMs) {
      this.#lastFullScan = now;
      for (const id of this.#o.host.ids()) this.touch(id, now);
    }
    const due = [...this.#due].filter(([, at]) => at <= now).map(([id]) => id);
    for (const id of due) {
      if (this.#stopped) return;
      this.#due.delete(id);
      await this.sync(id);
    }
  }

  /** One partition, now (tests and the cleaner call it after a pass). Failures are logged and retried later. */
  async sync(partitionId: string): Promise<void> {
    const slot = this.#o.host.slot(partitionId);
    if (!slot) {
      this.#forget(partitionId);
      return;
    }
    try {
      const finished = await this.#o.host.background(partitionId, (log) => this.#sync(slot, log));
      // Stopped short (fenced, or a file replaced under the upload): nothing else may touch the
      // partition again before the next full scan, a minute away, so look again soon.
      if (!finished) this.touch(partitionId, this.#o.clock.now() + RETRY_SHORT_MS);
    } catch (error) {
      this.#o.logger.warn({ partitionId, err: error }, "object storage sync failed; retrying");
      this.touch(partitionId, this.#o.clock.now() + 5_000);
    }
  }

  /** True when every step ran to its end; false when one stopped short and is worth retrying. */
  async #sync(slot: PartitionSlot, log: HostedLog): Promise<boolean> {
    let manifest = await this.#o.manifest.load(slot.partitionId);
    const end = manifest.durableEndOffset;
    // Nothing durable yet: the first commit touches the partition.
    if (end === null) return true;
    if (log.logStartOffset > manifestStart(manifest, end)) {
      if ((await this.#o.changes.trimBelow(slot.partitionId, slot.epoch, log.logStartOffset)) !== "done")
        return false;
      manifest = await this.#o.manifest.load(slot.partitionId);
      this.#o.window.advance(slot.partitionId, slot.epoch, manifest.durableEndOffset!);
    }
    const segments = await log.segments();
    const uploaded = await this.#uploadClosed(slot, log, segments, manifest);
    if (uploaded === "fenced") return false;
    manifest = await this.#o.manifest.load(slot.partitionId);
    // The active segment as of now, read after the manifest: a roll since `segments` was read would
    // otherwise let one consolidated row straddle the new segment boundary, and the segment closed
    // by it could then never replace its rows (an upload "conflict" for good). Rows in this manifest
    // were appended before this read, so no later roll can split them.
    const activeBase = (await log.segments()).at(-1)!.baseOffset;
    if (!(await this.#consolidate(slot, log, activeBase, manifest))) return false;
    await this.#evict(slot, log, await log.segments(), manifest);
    return uploaded === "all";
  }

  /**
   * Step 2, newest segment first (so segments written before the manifest began are prepended in
   * one sync): "fenced" when the lease was lost, "partly" when a segment was left for a later sync.
   */
  async #uploadClosed(
    slot: PartitionSlot,
    log: HostedLog,
    segments: readonly LogSegment[],
    manifest: PartitionManifest,
  ): Promise<"all" | "partly" | "fenced"> {
    const end = manifest.durableEndOffset!;
    let rows = manifest.rows;
    let result: "all" | "partly" = "all";
    for (let i = segments.length - 2; i >= 0; i--) {
      const segment = segments[i]!;
      const rangeEnd = segments[i + 1]!.baseOffset - 1;
      if (segment.remote || rangeEnd >= end || rangeEnd < log.logStartOffset) continue;
      const row = rows.find(
        (r) => r.kind === "segment" && r.baseOffset === segment.baseOffset && r.lastOffset === rangeEnd,
      );
      if (row && (await this.#holds(slot, segment, row))) continue;
      const outcome = await this.#upload(slot, log, segment, rangeEnd, rows);
      if (outcome === "fenced") return "fenced";
      if (outcome === "done") rows = (await this.#o.manifest.load(slot.partitionId)).rows;
      // A conflict stays one (left to commit rows, logged); a file replaced mid-read is worth another look.
      else if (outcome === "replaced") result = "partly";
    }
    return result;
  }

  /** Whether the row's object holds exactly the segment's file (by SHA-256, known per file identity). */
  async #holds(slot: PartitionSlot, segment: LogSegment, row: ManifestRow): Promise<boolean> {
    if (row.byteSize !== segment.sizeBytes) return false;
    const file = await this.#fileSha(slot, segment.baseOffset);
    return file !== null && file.sha256 === row.sha256;
  }

  async #fileSha(slot: PartitionSlot, baseOffset: number): Promise<KnownFile | null> {
    const path = segmentPath(slot.dir, baseOffset);
    const info = await stat(path).catch(() => null);
    if (info === null) return null;
    const identity = `${info.ino}:${info.mtimeMs}:${info.size}`;
    const known = this.#knownOf(slot.partitionId);
    const cached = known.get(baseOffset);
    if (cached?.identity === identity) return cached;
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    const file = { identity, sha256: hash.digest("hex") };
    known.set(baseOffset, file);
    return file;
  }

  async #upload(
    slot: PartitionSlot,
    log: HostedLog,
    segment: LogSegment,
    rangeEnd: number,
    rows: readonly ManifestRow[],
  ): Promise<ChangeOutcome | "replaced"> {
    const { store } = this.#o;
    const snapshot = log.producerSnapshotAt(rangeEnd + 1);
    const sent = await this.#send(slot, log, segment.baseOffset);
    if (sent === null) return "replaced";
    const { info, entry, key, sha256, keyFilter: filter } = sent;
    if (snapshot) await store.put(`${key}${SNAPSHOT_SUFFIX}`, snapshot);
    if (filter) await store.put(`${key}${KEY_FILTER_SUFFIX}`, filter);
    const keyIndex = await this.#keyIndexSnapshot(slot, log);
    if (keyIndex) await store.put(`${key}${KEY_INDEX_SUFFIX}`, keyIndex);
    this.#o.fault?.("before-segment-swap");
    const stats: SegmentObjectStats = {
      nextOffset: entry.nextOffset,
      records: entry.records,
      tombstones: entry.tombstones,
      firstBatchTimestamp: entry.firstBatchTimestamp,
      maxTimestamp: entry.maxTimestamp,
      offsetOfMaxTimestamp: entry.offsetOfMaxTimestamp,
      largestTimestampMs: entry.largestTimestampMs,
      snapshot: snapshot !== null,
      keyFilter: filter !== null,
      keyIndex: keyIndex !== null,
    };
    const replaced = rows.filter((r) => r.lastOffset >= segment.baseOffset && r.baseOffset <= rangeEnd);
    const outcome = await this.#o.changes.replaceRange(slot.partitionId, slot.epoch, {
      from: segment.baseOffset,
      to: rangeEnd,
      rows: [
        {
          kind: "segment",
          objectKey: key,
          position: 0,
          byteSize: info.size,
          sha256,
          baseOffset: segment.baseOffset,
          lastOffset: rangeEnd,
          stats,
          startsSegment: true,
        },
      ],
      reason: replaced.some((r) => r.kind === "segment") ? "cleaner" : "upload",
    });
    if (outcome !== "done") {
      // Never named by a row: remove at once (the orphan sweeper would, later).
      const keys = [key, ...SEGMENT_SIDECAR_SUFFIXES.map((suffix) => `${key}${suffix}`)];
      await Promise.all(keys.map((k) => store.delete(k))).catch(() => undefined);
      if (outcome === "conflict") {
        this.#o.logger.warn(
          { partitionId: slot.partitionId, baseOffset: segment.baseOffset, rangeEnd },
          "segment upload does not line up with the manifest's rows; left to commit rows",
        );
      }
      return outcome;
    }
    this.#knownOf(slot.partitionId).set(segment.baseOffset, {
      identity: `${info.ino}:${info.mtimeMs}:${info.size}`,
      sha256,
    });
    if (keyIndex) await this.#dropOlderKeyIndexes(slot, rows);
    return outcome;
  }

  /**
   * The `.index` sidecars of the rows before the one just committed: a new owner reads only the
   * newest (durable-partitions.ts), and each is the size of the whole index (17 B per key), so
   * kept beside every segment they would outweigh a partition of small segments. Best effort: one
   * left behind goes with its row; a row whose sidecar is gone is read as having none.
   */
  async #dropOlderKeyIndexes(slot: PartitionSlot, rows: readonly ManifestRow[]): Promise<void> {
    const older = rows.filter((r) => r.kind === "segment" && r.stats?.keyIndex);
    try {
      for (const row of older) await this.#o.store.delete(`${row.objectKey}${KEY_INDEX_SUFFIX}`);
    } catch (error) {
      this.#o.logger.warn({ partitionId: slot.partitionId, err: error }, "older key index not deleted");
    }
  }

  /**
   * The partition's key index as it stands now, to keep beside the segment being uploaded: a new
   * owner starts from the newest one instead of reading every segment (durable-partitions.ts).
   * Kept only once every offset it covers is committed at our epoch: an append this log holds but
   * the manifest never will (we crash or are fenced first) would be in it, and a later owner's
   * records at those offsets would not — the same count, other keys, which no check could see.
   * Null when the log has no index or it cannot be taken now (the next upload takes one).
   */
  async #keyIndexSnapshot(slot: PartitionSlot, log: HostedLog): Promise<Buffer | null> {
    const indexed = keyIndexOf(log);
    if (!indexed) return null;
    try {
      const { bytes, coveredEnd } = await indexed.snapshot();
      await this.#o.window.durable(slot.partitionId, slot.epoch, coveredEnd);
      return bytes;
    } catch (error) {
      this.#o.logger.warn(
        { partitionId: slot.partitionId, err: error },
        "key index not kept with the segment",
      );
      return null;
    }
  }

  /**
   * Streams the segment file to a new object (segment-transfer.ts: bounded memory however large),
   * through one handle for the size check and the upload, so a file renamed over the path in
   * between (a reopen; a pass cannot run now) is not uploaded under the sizes checked here. Null
   * when the file is not the segment the log describes: the next sync sees the new one.
   */
  async #send(slot: PartitionSlot, log: HostedLog, baseOffset: number) {
    const file = await open(segmentPath(slot.dir, baseOffset), "r");
    try {
      const info = await file.stat();
      const entry = log.remoteEntryOf(baseOffset, "");
      if (entry === null || info.size !== entry.sizeBytes) return null;
      const key = segmentObjectKey(slot.partitionId, baseOffset, slot.epoch, this.#o.clock.now());
      // Only keys matter to an erasure or a tombstone: only compacted topics get a key filter.
      const uploaded = await uploadSegmentFile(this.#o.store, key, file, info.size, {
        keyFilter: log.config.cleanupPolicy.compact,
      });
      return { info, entry, key, ...uploaded };
    } finally {
      await file.close();
    }
  }

  /**
   * Step 3: the active segment's rows that sit in shared commit objects and are old enough become
   * one object of the partition's own, read from the local log (each row's bytes checked against
   * its hash; a mismatch leaves them for the next sync). False when the lease was lost.
   */
  async #consolidate(
    slot: PartitionSlot,
    log: HostedLog,
    activeBase: number,
    manifest: PartitionManifest,
  ): Promise<boolean> {
    const now = this.#o.clock.now();
    const cutoff = this.#eager.delete(slot.partitionId) ? now : now - this.#consolidateAfterMs;
    const run: ManifestRow[] = [];
    let bytes = 0;
    for (const row of manifest.rows) {
      if (row.baseOffset < activeBase || row.kind !== "commit") continue;
      const shared = row.objectKey.startsWith(COMMIT_PREFIX) && row.createdAtMs <= cutoff;
      if (!shared || bytes + row.byteSize > MAX_CONSOLIDATION_BYTES) {
        if (run.length > 0) break;
        continue;
      }
      run.push(row);
      bytes += row.byteSize;
    }
    if (run.length === 0) return true;
    const body = await rowBytes(log, run);
    if (body === null) {
      this.#o.logger.warn(
        { partitionId: slot.partitionId },
        "local bytes differ from commit rows; not consolidated",
      );
      return true;
    }
    const first = run[0]!;
    const last = run.at(-1)!;
    const key = tailObjectKey(slot.partitionId, first.baseOffset, slot.epoch, this.#o.clock.now());
    await this.#o.store.put(key, body);
    this.#o.fault?.("before-tail-swap");
    const outcome = await this.#o.changes.replaceRange(slot.partitionId, slot.epoch, {
      from: first.baseOffset,
      to: last.lastOffset,
      rows: [
        {
          kind: "commit",
          objectKey: key,
          position: 0,
          byteSize: body.length,
          sha256: createHash("sha256").update(body).digest("hex"),
          baseOffset: first.baseOffset,
          lastOffset: last.lastOffset,
          stats: null,
          startsSegment: first.startsSegment,
        },
      ],
      reason: "consolidation",
    });
    if (outcome !== "done") await this.#o.store.delete(key).catch(() => undefined);
    if (outcome === "done" && run.length < manifest.rows.length) this.touch(slot.partitionId);
    return outcome !== "fenced";
  }

  /**
   * Step 4: oldest first, uploaded segments (a segment row holding exactly the file) leave the
   * disk while the partition's local bytes exceed local.retention.bytes, or once older than
   * local.retention.ms — a segment a reader fetched back is given `fetchedKeepMs` before the latter.
   */
  async #evict(
    slot: PartitionSlot,
    log: HostedLog,
    segments: readonly LogSegment[],
    manifest: PartitionManifest,
  ): Promise<void> {
    const limits = localRetention(log.config);
    const evicted = this.#evictedOf(slot.partitionId);
    const now = this.#o.clock.now();
    for (const segment of segments) {
      if (!segment.remote && evicted.get(segment.baseOffset) === null) evicted.set(segment.baseOffset, now);
    }
    if (limits.bytes === null && limits.ms === null) return;
    let localBytes = segments.reduce((sum, s) => sum + (s.remote ? 0 : s.sizeBytes), 0);
    for (let i = 0; i + 1 < segments.length; i++) {
      const segment = segments[i]!;
      if (segment.remote) continue;
      const rangeEnd = segments[i + 1]!.baseOffset - 1;
      const row = manifest.rows.find(
        (r) => r.kind === "segment" && r.baseOffset === segment.baseOffset && r.lastOffset === rangeEnd,
      );
      if (!row || !(await this.#holds(slot, segment, row))) continue;
      const fetchedAt = evicted.get(segment.baseOffset) ?? null;
      const age = now - (segment.maxTimestamp ?? now);
      const tooOld =
        limits.ms !== null &&
        age > limits.ms &&
        (fetchedAt === null || now - fetchedAt > this.#fetchedKeepMs);
      const tooBig = limits.bytes !== null && localBytes > limits.bytes;
      if (!tooOld && !tooBig) continue;
      const ref = encodeSegmentRef({ key: row.objectKey, sha256: row.sha256, size: row.byteSize });
      if (await log.evictSegment(segment.baseOffset, ref)) {
        localBytes -= segment.sizeBytes;
        evicted.set(segment.baseOffset, null);
        this.#knownOf(slot.partitionId).delete(segment.baseOffset);
      }
    }
  }

  #knownOf(partitionId: string): Map<number, KnownFile> {
    return entryOf(this.#known, partitionId);
  }

  #evictedOf(partitionId: string): Map<number, number | null> {
    return entryOf(this.#evicted, partitionId);
  }

  #forget(partitionId: string): void {
    this.#due.delete(partitionId);
    this.#known.delete(partitionId);
    this.#evicted.delete(partitionId);
  }
}

function entryOf<V>(maps: Map<string, Map<number, V>>, partitionId: string): Map<number, V> {
  const existing = maps.get(partitionId);
  if (existing) return existing;
  const created = new Map<number, V>();
  maps.set(partitionId, created);
  return created;
}

function segmentPath(dir: string, baseOffset: number): string {
  return join(dir, `${String(baseOffset).padStart(20, "0")}.log`);
}

/** The stored bytes of `rows` (consecutive) from the local log, or null when a row's hash differs. */
async function rowBytes(log: HostedLog, rows: readonly ManifestRow[]): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  for (const row of rows) {
    const chunks: Buffer[] = [];
    let from = row.baseOffset;
    while (from <= row.lastOffset) {
      const read = readBelow(await log.readBatches(from, { maxBytes: row.byteSize }), row.lastOffset + 1);
      if (read.bytes.length === 0) break;
      chunks.push(read.bytes);
      from = read.nextOffset;
    }
    const bytes = Buffer.concat(chunks);
    if (createHash("sha256").update(bytes).digest("hex") !== row.sha256) return null;
    parts.push(bytes);
  }
  return Buffer.concat(parts);
}
