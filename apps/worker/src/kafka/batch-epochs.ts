import { OFF_LEADER_EPOCH, readBatchHeader } from "@lastword/record-batch";
import type { LeaderEpochHistory } from "../hosting/leader-epochs";

/**
 * Writes into each fetched batch's partition-leader-epoch field (outside the CRC) the epoch that
 * appended it, from the partition's history, as a Kafka leader stamps batches on append: consumers
 * remember the epoch of what they read and validate their position with it after a leader change.
 * Batches from before the history began get −1 (unknown: clients skip validation), never a value a
 * producer happened to send. `bytes` must be the caller's own buffer (the log hands out fresh ones).
 */
export function stampLeaderEpochs(bytes: Buffer, history: LeaderEpochHistory | null): void {
  for (let pos = 0; pos < bytes.length; ) {
    const header = readBatchHeader(bytes, pos);
    bytes.writeInt32BE(history?.epochAt(header.baseOffset) ?? -1, pos + OFF_LEADER_EPOCH);
    pos += header.sizeBytes;
  }
}
