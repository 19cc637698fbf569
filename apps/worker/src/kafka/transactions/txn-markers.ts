import { type DataPlaneClient, DataPlaneError } from "@lastword/dataplane";
import type { PartitionHost } from "../../hosting/partition-host";
import { writeTxnMarker } from "../../hosting/txn-marker";
import type { MarkerWriter } from "./txn-coordinator";

/**
 * Markers through each partition's current owner: written here when this worker hosts the
 * partition, else sent over the data plane to whichever worker the lease table names (the same
 * route table and retries every other cross-worker call takes). A partition handed away between
 * the check and the write goes the data-plane way too.
 */
export function markerWriter(
  host: PartitionHost,
  dataPlane: Pick<DataPlaneClient, "writeTxnMarker">,
): MarkerWriter {
  return {
    async write(partitionId, marker) {
      if (host.slot(partitionId)) {
        try {
          await writeTxnMarker(host, partitionId, marker);
          return;
        } catch (error) {
          if (!(error instanceof DataPlaneError && error.code === "NOT_OWNER")) throw error;
        }
      }
      await dataPlane.writeTxnMarker({ partitionId, ...marker });
    },
  };
}
