import { floorIndex } from "./floor-index";

/**
 * Kafka's sparse offset index: 8-byte entries (offset relative to the segment base i32, byte
 * position i32), one per `INDEX_INTERVAL_BYTES` of log. An entry maps a batch's LAST offset to the
 * batch's start, so the floor entry of any target is never past the batch holding it.
 */
export const OFFSET_INDEX_ENTRY_BYTES = 8;

export class OffsetIndex {
  private relativeOffsets: Int32Array;
  private positions: Int32Array;
  private count = 0;

  constructor(
    readonly baseOffset: number,
    readonly maxEntries: number,
  ) {
    this.relativeOffsets = new Int32Array(16);
    this.positions = new Int32Array(16);
  }

  get entries(): number {
    return this.count;
  }

  get isFull(): boolean {
    return this.count >= this.maxEntries;
  }

  get sizeBytes(): number {
    return this.count * OFFSET_INDEX_ENTRY_BYTES;
  }

  entryAt(i: number): { offset: number; position: number } {
    return { offset: this.baseOffset + this.relativeOffsets[i]!, position: this.positions[i]! };
  }

  lastPosition(): number {
    return this.count === 0 ? -1 : this.positions[this.count - 1]!;
  }

  private lastRelativeOffset(): number {
    return this.count === 0 ? -1 : this.relativeOffsets[this.count - 1]!;
  }

  /** Adds an entry; returns false (and adds nothing) when the index is full. */
  append(offset: number, position: number): boolean {
    if (this.isFull) return false;
    const relative = offset - this.baseOffset;
    if (relative <= this.lastRelativeOffset() || position <= this.lastPosition()) {
      throw new Error(
        `offset index entries must grow: ${offset}@${position} after ${this.lastRelativeOffset()}`,
      );
    }
    this.push(relative, position);
    return true;
  }

  private push(relative: number, position: number): void {
    if (this.count === this.relativeOffsets.length) {
      const grownOffsets = new Int32Array(this.count * 2);
      grownOffsets.set(this.relativeOffsets);
      this.relativeOffsets = grownOffsets;
      const grownPositions = new Int32Array(this.count * 2);
      grownPositions.set(this.positions);
      this.positions = grownPositions;
    }
    this.relativeOffsets[this.count] = relative;
    this.positions[this.count] = position;
    this.count++;
  }

  /** Byte position to start scanning from to find `offset`: the floor entry, or 0. */
  lookup(offset: number): number {
    const found = floorIndex(this.relativeOffsets, this.count, offset - this.baseOffset);
    return found < 0 ? 0 : this.positions[found]!;
  }

  /** Drops entries pointing at or past `position` (after a log truncation). */
  truncateToPosition(position: number): void {
    while (this.count > 0 && this.positions[this.count - 1]! >= position) this.count--;
  }

  /** File bytes of entries [from, entries). */
  encode(from = 0): Buffer {
    const out = Buffer.allocUnsafe((this.count - from) * OFFSET_INDEX_ENTRY_BYTES);
    for (let i = from; i < this.count; i++) {
      const at = (i - from) * OFFSET_INDEX_ENTRY_BYTES;
      out.writeInt32BE(this.relativeOffsets[i]!, at);
      out.writeInt32BE(this.positions[i]!, at + 4);
    }
    return out;
  }
}
