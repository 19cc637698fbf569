import { floorIndex } from "./floor-index";

/**
 * Kafka's time index: 12-byte entries (timestamp i64, offset relative to the segment base i32),
 * added beside offset-index entries whenever the segment's max timestamp has grown, plus one final
 * entry when the segment closes.
 */
export const TIME_INDEX_ENTRY_BYTES = 12;
const TWO_POW_32 = 4294967296;

export class TimeIndex {
  private timestamps: number[] = [];
  private relativeOffsets: number[] = [];

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {}

  get entries(): number {
    return this.timestamps.length;
  }

  get isFull(): boolean {
    return this.entries >= this.maxEntries;
  }

  lastTimestamp(): number {
    return this.timestamps.at(-1) ?? -1;
  }

  private lastRelative(): number {
    return this.relativeOffsets.at(-1) ?? -1;
  }

  /**
   * Records (maxTimestampSoFar, its offset) if the timestamp grew. `ignoreFull` is for the final
   * entry written when the segment closes, which Kafka adds even to a full index.
   */
  maybeAppend(timestamp: number, offset: number, ignoreFull = false): boolean {
    if ((this.isFull && !ignoreFull) || timestamp <= this.lastTimestamp()) return false;
    this.timestamps.push(timestamp);
    this.relativeOffsets.push(Math.max(offset - this.baseOffset, this.lastRelative()));
    return true;
  }

  /**
   * Kafka's TimeIndex.lookup: the offset of the last entry whose timestamp is ≤ `timestamp`, or the
   * base offset when there is none. Every record before that entry's batch is older than the entry
   * (an entry is the first batch to reach its max timestamp), so a search for the first record at or
   * after `timestamp` may start there without missing one.
   */
  lookup(timestamp: number): number {
    const found = floorIndex(this.timestamps, this.entries, timestamp);
    return this.baseOffset + (found < 0 ? 0 : this.relativeOffsets[found]!);
  }

  truncateToOffset(nextOffset: number): void {
    while (this.entries > 0 && this.baseOffset + this.lastRelative() >= nextOffset) {
      this.timestamps.pop();
      this.relativeOffsets.pop();
    }
  }

  encode(from = 0): Buffer {
    const out = Buffer.allocUnsafe((this.entries - from) * TIME_INDEX_ENTRY_BYTES);
    for (let i = from; i < this.entries; i++) {
      const at = (i - from) * TIME_INDEX_ENTRY_BYTES;
      const timestamp = this.timestamps[i]!;
      const high = Math.floor(timestamp / TWO_POW_32);
      out.writeInt32BE(high, at);
      out.writeUInt32BE(timestamp - high * TWO_POW_32, at + 4);
      out.writeInt32BE(this.relativeOffsets[i]!, at + 8);
    }
    return out;
  }
}
