import type { DataPlaneClient } from "@lastword/dataplane";
import { dataPlaneErrorOf } from "../../hosting/log-errors";
import type { PartitionHost } from "../../hosting/partition-host";
import { writeTxnMarker } from "../../hosting/write-path";
import type { MarkerWriter } from "./txn-coordinator";

/**
 * Markers through each partition's current owner: written here when this worker hosts the
 * partition (stamped by its clock, as the data-plane route stamps them on the owner), else sent
 * over the data plane to whichever worker the lease table names (the same route table and retries
 * every other cross-worker call takes). A partition handed away between the check and the write
 * goes the data-plane way too. Failures come out as the data plane's codes either way, so the
 * coordinator reads one set (a fenced epoch, a deleted partition, a deposed coordinator).
 */
export function markerWriter(
  host: PartitionHost,
  dataPlane: Pick<DataPlaneClient, "writeTxnMarker">,
): MarkerWriter {
  return {
    async write(partitionId, marker) {
      if (host.slot(partitionId)) {
        try {
          await writeTxnMarker(host, partitionId, { ...marker, timestampMs: host.clock.now() });
          return;
        } catch (error) {
          const failure = dataPlaneErrorOf(error);
          if (failure.code !== "NOT_OWNER") throw failure;
        }
      }
      await dataPlane.writeTxnMarker({ partitionId, ...marker });
    },
  };
}
