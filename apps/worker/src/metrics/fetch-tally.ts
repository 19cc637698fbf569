/**
 * Records served per partition (REST reads and Kafka Fetch alike) since the last time the per-minute
 * sample took them: the fetch side of the console's throughput chart. In memory only; a crash
 * loses at most the seconds since the last sample.
 */
export class FetchTally {
  readonly #counts = new Map<string, number>();

  add(partitionId: string, records: number): void {
    if (records > 0) this.#counts.set(partitionId, (this.#counts.get(partitionId) ?? 0) + records);
  }

  /** The count for `partitionId`, reset to zero. */
  take(partitionId: string): number {
    const count = this.#counts.get(partitionId) ?? 0;
    this.#counts.delete(partitionId);
    return count;
  }
}
