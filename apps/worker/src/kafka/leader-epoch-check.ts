import { ErrorCode } from "@lastword/kafka-protocol";

/**
 * Kafka's check of a request's `current_leader_epoch` against the partition's leader epoch here
 * (the lease epoch of this worker's slot): older → FENCED_LEADER_EPOCH (the client's metadata is
 * stale), newer → UNKNOWN_LEADER_EPOCH (this broker has not caught up with a move yet); both make
 * the client refresh metadata and retry. −1 means the client does not know the epoch: no check.
 */
export function leaderEpochError(leaderEpoch: number, currentLeaderEpoch: number): number | null {
  if (currentLeaderEpoch === -1) return null;
  if (currentLeaderEpoch < leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (currentLeaderEpoch > leaderEpoch) return ErrorCode.UNKNOWN_LEADER_EPOCH;
  return null;
}
