import type { DataPlaneError, DataPlaneErrorCode } from "@lastword/dataplane";
import { ErrorCode } from "@lastword/kafka-protocol";
import { dataPlaneErrorOf } from "../hosting/log-errors";
import type { PartitionHost } from "../hosting/partition-host";

const KAFKA_CODE_BY_DATA_PLANE_CODE: Partial<Record<DataPlaneErrorCode, number>> = {
  NOT_OWNER: ErrorCode.NOT_LEADER_OR_FOLLOWER,
  PARTITION_UNAVAILABLE: ErrorCode.NOT_LEADER_OR_FOLLOWER,
  PARTITION_NOT_FOUND: ErrorCode.NOT_LEADER_OR_FOLLOWER,
  OFFSET_OUT_OF_RANGE: ErrorCode.OFFSET_OUT_OF_RANGE,
  INVALID_RECORD: ErrorCode.INVALID_RECORD,
  RECORD_TOO_LARGE: ErrorCode.MESSAGE_TOO_LARGE,
  POLICY_VIOLATION: ErrorCode.POLICY_VIOLATION,
  OUT_OF_ORDER_SEQUENCE: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
  INVALID_PRODUCER_EPOCH: ErrorCode.INVALID_PRODUCER_EPOCH,
  INVALID_TXN_STATE: ErrorCode.INVALID_TXN_STATE,
  TRANSACTION_COORDINATOR_FENCED: ErrorCode.TRANSACTION_COORDINATOR_FENCED,
};

/**
 * The answer for a partition the catalog names but this worker does not host: deleted under the
 * request (UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers for a deleted partition) or led elsewhere
 * (NOT_LEADER_OR_FOLLOWER: the client refreshes its metadata and retries there).
 */
export function notHostedError(host: Pick<PartitionHost, "wasDeleted">, partitionId: string): number {
  return host.wasDeleted(partitionId)
    ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    : ErrorCode.NOT_LEADER_OR_FOLLOWER;
}

/**
 * The Kafka error code (and message) for what a partition operation raised, through the data
 * plane's error first so both entry points classify failures the same way. Ownership problems are
 * NOT_LEADER_OR_FOLLOWER: clients refresh metadata and retry against the new leader.
 */
export function kafkaErrorOf(error: unknown): { errorCode: number; message: string } {
  const dp: DataPlaneError = dataPlaneErrorOf(error);
  return {
    errorCode: KAFKA_CODE_BY_DATA_PLANE_CODE[dp.code] ?? ErrorCode.UNKNOWN_SERVER_ERROR,
    message: dp.message,
  };
}
