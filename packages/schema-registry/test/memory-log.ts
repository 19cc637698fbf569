import type { RegistryLog, RegistryLogRecord } from "../src/index";

/**
 * A registry log in memory for the package's unit tests: an array of records with offsets,
 * compaction by key on demand, and a queue for `exclusive`. The api's tests use the real topic.
 */
export class MemoryLog implements RegistryLog {
  records: RegistryLogRecord[] = [];
  private next = 0;
  private queue: Promise<unknown> = Promise.resolve();

  async endOffset(): Promise<number> {
    return this.next;
  }

  async *read(fromOffset: number): AsyncIterable<{ records: readonly RegistryLogRecord[]; end: number }> {
    yield { records: this.records.filter((r) => r.offset >= fromOffset), end: this.next };
  }

  async append(records: readonly { key: Buffer; value: Buffer | null }[]): Promise<readonly number[]> {
    return records.map((r) => {
      const offset = this.next++;
      this.records.push({ offset, key: r.key, value: r.value });
      return offset;
    });
  }

  exclusive<T>(write: () => Promise<T>): Promise<T> {
    const run = this.queue.then(write, write);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Keeps each key's latest record, as the cleaner would (tombstones removed too). */
  compact(): void {
    const latest = new Map<string, RegistryLogRecord>();
    for (const r of this.records) latest.set(Buffer.from(r.key ?? []).toString("hex"), r);
    this.records = [...latest.values()].filter((r) => r.value !== null).sort((a, b) => a.offset - b.offset);
  }
}
