import type { RemovedTombstone } from "./cleaner-batch";

// What a cleaning pass reports: its own module so the cleaner, its passes and the partition log
// all import it downward (no cleaner ↔ pass cycle).

/** Why a pass ran; "forced" when only `force` made it run. */
export type CleanTrigger = "dirty-ratio" | "max-compaction-lag" | "delete-horizon" | "forced" | "targeted";

export interface CleanResult {
  cleaned: boolean;
  /** Bytes of the segments recopied (Kafka's bytesRead). */
  bytesRead: number;
  bytesWritten: number;
  recordsRead: number;
  recordsRemoved: number;
  /** Tombstones removed: superseded ones and those whose delete horizon had passed. */
  tombstonesRemoved: number;
  /**
   * Each tombstone counted in `tombstonesRemoved` (same length), in offset order, from the groups
   * this pass swapped in (an aborted pass reports those swapped before it stopped).
   */
  removedTombstones: RemovedTombstone[];
  /** Keys in the map / slots the budget allows (Kafka's buffer utilization). */
  mapUtilization: number;
  /**
   * Bytes of the offset map this pass used: the budget, or less when the dirty range holds fewer
   * records than the budget has entries (the map is sized to them and behaves identically).
   */
  mapBytes: number;
  /** The new checkpoint: where the next pass's dirty section starts. */
  nextDirtyOffset: number;
  durationMs: number;
  /** Bytes and records read while building the offset map (Kafka's mapBytesRead / mapMessagesRead). */
  mapBytesRead: number;
  mapRecordsRead: number;
  /** Records without a key dropped (Kafka's invalidMessagesRead). */
  keylessRecordsRemoved: number;
  /** Records of aborted transactions removed, whatever their keys. */
  abortedRecordsRemoved: number;
  /** COMMIT/ABORT markers removed: no batch of their transaction was left and their horizon had passed. */
  markersRemoved: number;
  /** 100 × bytesWritten / max(bytesRead, 1): Kafka's cleaner-recopy-percent for this pass. */
  recopyPercent: number;
  /** The range and lag this pass was chosen on (Kafka's max-dirty-percent, max-compaction-delay-secs). */
  dirtyRatio: number;
  maxCompactionDelayMs: number;
  firstDirtyOffset: number;
  firstUncleanableOffset: number;
  segmentsRead: number;
  segmentsWritten: number;
  trigger: CleanTrigger | null;
  startedAtMs: number;
  /** Set when the log changed under the pass (closed, or segments removed); nothing was checkpointed. */
  abortedReason: string | null;
}
