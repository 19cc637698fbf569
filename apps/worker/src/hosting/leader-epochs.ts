import { readTextFile, writeFileAtomically } from "@lastword/logstore";

/** Kafka's file name and layout (version, count, then one "epoch startOffset" line per entry). */
export const LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint";
const VERSION = "0";

export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

/** What OffsetForLeaderEpoch answers: the epoch found (−1 when none) and where it ended (−1 likewise). */
export interface EpochEnd {
  leaderEpoch: number;
  endOffset: number;
}

const UNDEFINED: EpochEnd = { leaderEpoch: -1, endOffset: -1 };

/**
 * A partition's leader epochs and the offset each started at (Kafka's LeaderEpochFileCache), kept
 * in the partition directory beside the log, so it moves with the partition: every new owner adds
 * its lease epoch at the log end it found. Consumers ask where an epoch ended to detect that the
 * log they read was truncated under them (librdkafka's offset validation after a leader change).
 */
export class LeaderEpochHistory {
  readonly #dir: string;
  #entries: EpochEntry[];

  private constructor(dir: string, entries: EpochEntry[]) {
    this.#dir = dir;
    this.#entries = entries;
  }

  /** Reads the checkpoint; a missing or unreadable one starts empty (epochs before it are unknown). */
  static load(dir: string): LeaderEpochHistory {
    return new LeaderEpochHistory(dir, parse(readTextFile(dir, LEADER_EPOCH_CHECKPOINT)));
  }

  /**
   * Replaces the checkpoint with `entries` (a history kept elsewhere: the manifest's, which a new
   * owner's disk takes over) and persists it before returning.
   */
  static write(dir: string, entries: readonly EpochEntry[]): LeaderEpochHistory {
    const history = new LeaderEpochHistory(dir, [...entries]);
    history.#persist();
    return history;
  }

  get entries(): readonly EpochEntry[] {
    return this.#entries;
  }

  get latestEpoch(): number {
    return this.#entries.at(-1)?.epoch ?? -1;
  }

  /**
   * Records that `epoch` leads from `startOffset` on and persists it before returning. As Kafka's
   * assign, entries that would no longer be monotonic go (an epoch that wrote nothing is replaced
   * by the next one at the same offset); an epoch not above the latest changes nothing.
   */
  assign(epoch: number, startOffset: number): void {
    if (epoch <= this.latestEpoch) return;
    this.#entries = [...this.#entries.filter((e) => e.startOffset < startOffset), { epoch, startOffset }];
    this.#persist();
  }

  #persist(): void {
    const lines = this.#entries.map((e) => `${e.epoch} ${e.startOffset}`);
    writeFileAtomically(
      this.#dir,
      LEADER_EPOCH_CHECKPOINT,
      `${VERSION}\n${lines.length}\n${lines.map((l) => `${l}\n`).join("")}`,
    );
  }

  /** The epoch that wrote `offset` (the latest entry starting at or before it), −1 when unknown. */
  epochAt(offset: number): number {
    return this.#entries.findLast((e) => e.startOffset <= offset)?.epoch ?? -1;
  }

  /**
   * Kafka's endOffsetFor: the current epoch ends at the log end; an older one where the next epoch
   * above it started, answered with the largest known epoch at or below it (or the requested one when
   * it predates the history); an epoch above the latest, or −1, is undefined.
   */
  endOffsetFor(requested: number, logEndOffset: number): EpochEnd {
    if (requested < 0) return UNDEFINED;
    if (requested === this.latestEpoch) return { leaderEpoch: requested, endOffset: logEndOffset };
    const higher = this.#entries.find((e) => e.epoch > requested);
    if (!higher) return UNDEFINED;
    const floor = this.#entries.findLast((e) => e.epoch <= requested);
    return { leaderEpoch: floor?.epoch ?? requested, endOffset: higher.startOffset };
  }
}

function parse(text: string | null): EpochEntry[] {
  if (text === null) return [];
  const [version, count, ...lines] = text.split("\n");
  if (version !== VERSION) return [];
  const entries: EpochEntry[] = [];
  for (const line of lines.slice(0, Number(count))) {
    const [epoch, startOffset] = line.split(" ").map(Number);
    if (!Number.isSafeInteger(epoch) || !Number.isSafeInteger(startOffset)) return [];
    entries.push({ epoch: epoch as number, startOffset: startOffset as number });
  }
  return entries;
}
