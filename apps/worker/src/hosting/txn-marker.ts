import type { TxnMarkerRequest } from "@lastword/dataplane";
import type { PartitionHost } from "./partition-host";

/**
 * Writes a transaction's COMMIT/ABORT marker on a partition this worker hosts: fenced like a
 * produce (the partition's lease and storage fence), made as durable as the topic's appends are
 * before it is answered, then readers waiting on the partition are woken (a read_committed reader
 * waits for exactly this: the last stable offset moving). Both the transaction coordinator on this
 * worker and the data plane's `txn-marker` route (a coordinator elsewhere) call it.
 */
export async function writeTxnMarker(
  host: PartitionHost,
  partitionId: string,
  marker: TxnMarkerRequest,
): Promise<void> {
  await host.write(partitionId, Promise.resolve(marker), async (log, m) => {
    const { lastOffset } = await log.appendTxnMarker(m);
    await host.durable(partitionId, lastOffset + 1, log.config.durability);
  });
  host.notifyAppended(partitionId);
}
