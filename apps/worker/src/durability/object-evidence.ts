import { createHash } from "node:crypto";
import type { CacheEvidence, DeletedObjectEvidence, ObjectEvidence } from "@lastword/erasure";
import type { ObjectStore } from "@lastword/object-store";
import { type ObjectScan, scanBytes } from "../hosting/erasure-evidence";
import { KEY_FILTER_SUFFIX } from "./bucket-layout";
import { mayHoldKey } from "./key-filter";
import type { ManifestRepository, ManifestRow } from "./manifest.repository";
import type { ManifestChangesRepository } from "./manifest-changes.repository";

export interface ObjectEvidenceOptions {
  store: ObjectStore;
  manifest: Pick<ManifestRepository, "load">;
  changes: Pick<ManifestChangesRepository, "supersededBelow" | "copiesOf">;
  workerId: string;
  /** A worker heard of within this long is alive: its copy must be gone before a proof. */
  liveWithinMs: number;
  /** False: no filter proves a key absent, every object is read (the bench's baseline). */
  keyFilters: boolean;
}

/** Key filters kept in memory, by object key (an object's filter never changes). */
const FILTER_CACHE_ENTRIES = 4_096;

/**
 * The bucket's side of an erasure proof for one partition: every object its manifest names that
 * holds offsets below the tombstone is read (its bytes hashed against the row and scanned for the
 * key) unless its key filter proves the key absent; every object the manifest stopped naming below
 * the tombstone must be deleted from the store (listed with when); and no live worker but this one
 * may hold a copy of the partition on its disk.
 */
export class ObjectEvidenceScanner {
  readonly #o: ObjectEvidenceOptions;
  readonly #filters = new Map<string, Buffer>();

  constructor(options: ObjectEvidenceOptions) {
    this.#o = options;
  }

  async scan(partitionId: string, key: Buffer, below: number, since: Date, now: Date): Promise<ObjectScan> {
    const { rows } = await this.#o.manifest.load(partitionId);
    const matches: number[] = [];
    const scanned: ObjectEvidence[] = [];
    let bytesScanned = 0;
    for (const row of rows) {
      if (row.baseOffset >= below) continue;
      const evidence = {
        key: row.objectKey,
        baseOffset: row.baseOffset,
        lastOffset: row.lastOffset,
        sizeBytes: row.byteSize,
        sha256: row.sha256,
      };
      if (this.#o.keyFilters && row.stats?.keyFilter && !mayHoldKey(await this.#filter(row), key)) {
        scanned.push({ ...evidence, check: "filtered" });
        continue;
      }
      const bytes = await this.#o.store.get(row.objectKey, { offset: row.position, length: row.byteSize });
      if (createHash("sha256").update(bytes).digest("hex") !== row.sha256) {
        throw new Error(`object ${row.objectKey} does not hold the bytes its manifest row names`);
      }
      bytesScanned += bytes.length;
      scanBytes(bytes, key, below, matches);
      scanned.push({ ...evidence, check: "scanned" });
    }
    const superseded = await this.#o.changes.supersededBelow(partitionId, below, since);
    const pending = superseded.filter((s) => s.deletedAt === null);
    const deleted: DeletedObjectEvidence[] = superseded.flatMap((s) =>
      s.deletedAt === null
        ? []
        : [
            {
              key: s.objectKey,
              sha256: s.sha256,
              baseOffset: s.baseOffset,
              lastOffset: s.lastOffset,
              reason: s.reason,
              deletedAt: s.deletedAt.toISOString(),
            },
          ],
    );
    const caches: CacheEvidence[] = [];
    const live: string[] = [];
    for (const copy of await this.#o.changes.copiesOf(partitionId)) {
      const heard = copy.heartbeatAt?.getTime() ?? 0;
      const alive = copy.stoppedAt === null && now.getTime() - heard <= this.#o.liveWithinMs;
      if (copy.workerId !== this.#o.workerId && alive) live.push(copy.workerId);
      caches.push({
        workerId: copy.workerId,
        state: copy.workerId === this.#o.workerId ? "owner" : "unreachable",
        lastHeartbeatAt: new Date(heard).toISOString(),
      });
    }
    const blockedBy =
      pending.length > 0
        ? `${pending.length} replaced object(s) holding offsets below the tombstone are deleted: ${pending.map((s) => s.objectKey).join(", ")}`
        : live.length > 0
          ? `worker(s) ${live.join(", ")} still hold a copy of the partition and remove it`
          : null;
    return { matches, evidence: { scanned, deleted, caches }, bytesScanned, blockedBy };
  }

  /**
   * The closed segments below `below` that may hold the key: all of them but those whose segment
   * row (same base, range and size as the segment here) has a key filter proving it absent.
   */
  async candidates(
    partitionId: string,
    key: Buffer,
    below: number,
    segments: readonly { baseOffset: number; sizeBytes: number }[],
  ): Promise<number[]> {
    const { rows } = await this.#o.manifest.load(partitionId);
    const bases: number[] = [];
    for (let i = 0; i + 1 < segments.length; i++) {
      const segment = segments[i]!;
      if (segment.baseOffset >= below) break;
      const rangeEnd = segments[i + 1]!.baseOffset - 1;
      const row = rows.find(
        (r) =>
          r.kind === "segment" &&
          r.baseOffset === segment.baseOffset &&
          r.lastOffset === rangeEnd &&
          r.byteSize === segment.sizeBytes,
      );
      if (row?.stats?.keyFilter && !mayHoldKey(await this.#filter(row), key)) continue;
      bases.push(segment.baseOffset);
    }
    return bases;
  }

  async #filter(row: ManifestRow): Promise<Buffer> {
    const cached = this.#filters.get(row.objectKey);
    if (cached) return cached;
    const filter = await this.#o.store.get(`${row.objectKey}${KEY_FILTER_SUFFIX}`);
    if (this.#filters.size >= FILTER_CACHE_ENTRIES) this.#filters.delete(this.#filters.keys().next().value!);
    this.#filters.set(row.objectKey, filter);
    return filter;
  }
}
