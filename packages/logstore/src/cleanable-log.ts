import type { TopicConfig } from "@lastword/topic-config";
import type { AbortedTxnIndex } from "./aborted-txn-index";
import type { Clock } from "./clock";
import type { Mutex } from "./mutex";
import type { Segment } from "./segment";

// Its own module so the cleaner and its passes both import it downward (no cleaner ↔ pass cycle).

/** What the cleaner needs from its PartitionLog. */
export interface CleanableLog {
  readonly dir: string;
  readonly config: TopicConfig;
  readonly clock: Clock;
  readonly dedupeBufferBytes: number;
  readonly mutex: Mutex;
  readonly segmentObjects: readonly Segment[];
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly isClosed: boolean;
  replaceSegments(replacements: readonly Segment[], replaced: readonly Segment[]): void;
  /** Persists the closed segments' tombstone counts (after swaps changed them). */
  checkpointTombstoneCounts(): void;
  scheduleFileDeletion(paths: string[]): void;
  /** Each live idempotent producer's last batch, by its last offset: kept even when emptied. */
  producerLastBatchEnds(): ReadonlyMap<number, number>;
  /** The aborted transactions (their data is removed whatever its keys). */
  readonly abortedTxns: AbortedTxnIndex;
  /** The first offset of the earliest open transaction, or null: the round never reaches it. */
  firstUnstableOffset(): number | null;
  /** Makes an evicted segment local again (the pass reads segment files). */
  fetchBack(segment: Segment): Promise<void>;
}
