import type { DataPlaneError } from "@lastword/dataplane";
import { ErrorCode } from "@lastword/kafka-protocol";
import { dataPlaneErrorOf } from "../hosting/log-errors";

/**
 * The Kafka error code (and message) for what a partition operation raised, through the data
 * plane's error first so both entry points classify failures the same way. Ownership problems are
 * NOT_LEADER_OR_FOLLOWER: clients refresh metadata and retry against the new leader.
 */
export function kafkaErrorOf(error: unknown): { errorCode: number; message: string } {
  const dp: DataPlaneError = dataPlaneErrorOf(error);
  const message = dp.message;
  switch (dp.code) {
    case "NOT_OWNER":
    case "PARTITION_UNAVAILABLE":
    case "PARTITION_NOT_FOUND":
      return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, message };
    case "OFFSET_OUT_OF_RANGE":
      return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, message };
    case "INVALID_RECORD":
      return { errorCode: ErrorCode.INVALID_RECORD, message };
    case "RECORD_TOO_LARGE":
      return { errorCode: ErrorCode.MESSAGE_TOO_LARGE, message };
    case "POLICY_VIOLATION":
      return { errorCode: ErrorCode.POLICY_VIOLATION, message };
    case "OUT_OF_ORDER_SEQUENCE":
      return { errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, message };
    case "INVALID_PRODUCER_EPOCH":
      return { errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, message };
    default:
      return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, message };
  }
}
