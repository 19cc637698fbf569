/** One record of the registry's topic as read back. */
export interface RegistryLogRecord {
  offset: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
}

/**
 * Where a tenant's registry keeps its state: a compacted topic. The registry knows nothing of how
 * it is reached (the api implements it over the data plane); it only needs these four things.
 */
export interface RegistryLog {
  /** One past the topic's last offset now (0 while the topic does not exist). */
  endOffset(): Promise<number>;
  /**
   * The records from `fromOffset` to at least `toOffset`, in pages. From 0 this may be the
   * compacted view (each key's latest record); `end` is the offset the read reached.
   */
  read(
    fromOffset: number,
    toOffset: number,
  ): AsyncIterable<{ records: readonly RegistryLogRecord[]; end: number }>;
  /** Appends the records as one batch (created on first write); their offsets, in order. */
  append(records: readonly { key: Buffer; value: Buffer | null }[]): Promise<readonly number[]>;
  /** Runs `write` with every other writer of the same registry (any process) waiting. */
  exclusive<T>(write: () => Promise<T>): Promise<T>;
}
