import type { AbortedTxn } from "./aborted-txn-index";

// What one cleaner pass knows of transactions (Kafka's CleanedTransactionMetadata, reference
// §2.10): which data batches belong to aborted transactions (removed whatever their keys, never put
// into the offset map) and, for each COMMIT/ABORT marker, whether any batch of its transaction was
// still met in this pass. A pass reads every closed segment from the log start in offset order, and
// a producer's transactions do not overlap, so "a batch of this producer's transaction was met since
// its previous marker" is one flag per producer. A marker whose transaction left no batch may go:
// first a pass stamps it with a delete horizon, a later one after the horizon removes it (two
// passes, as Kafka's). A targeted rewrite (an erasure's purge) reads only some segments: it keeps
// every marker as it is.

export class CleanerTxns {
  private readonly abortedByProducer = new Map<number, AbortedTxn[]>();
  private readonly txnDataMet = new Set<number>();

  /** `aborted`: the log's aborted transactions; `keepMarkers`: never judge a marker (partial passes). */
  constructor(
    aborted: readonly AbortedTxn[],
    private readonly keepMarkers: boolean,
  ) {
    for (const txn of aborted) {
      const list = this.abortedByProducer.get(txn.producerId) ?? [];
      list.push(txn);
      this.abortedByProducer.set(txn.producerId, list);
    }
  }

  /** True when the transactional batch of `producerId` at `offset` belongs to an aborted transaction. */
  isAborted(producerId: number, offset: number): boolean {
    const list = this.abortedByProducer.get(producerId);
    if (list === undefined) return false;
    // By marker offset, ascending: the first marker at or after the batch closes its transaction.
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (list[mid]!.lastOffset < offset) low = mid + 1;
      else high = mid;
    }
    const txn = list[low];
    return txn !== undefined && txn.firstOffset <= offset;
  }

  /** A transactional data batch met (kept or not): its transaction still has a batch. Returns isAborted. */
  onDataBatch(producerId: number, offset: number): boolean {
    this.txnDataMet.add(producerId);
    return this.isAborted(producerId, offset);
  }

  /** A marker met: true when no batch of its transaction was met in this pass (it may go). */
  onMarker(producerId: number): boolean {
    const met = this.txnDataMet.delete(producerId);
    return !met && !this.keepMarkers;
  }
}
