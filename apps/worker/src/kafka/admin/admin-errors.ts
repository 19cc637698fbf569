import { AppError } from "@lastword/api/topic-admin";
import { ErrorCode } from "@lastword/kafka-protocol";
import { kafkaErrorOf } from "../kafka-errors";

export interface AdminOutcome {
  errorCode: number;
  errorMessage: string | null;
}

export const OK: AdminOutcome = { errorCode: 0, errorMessage: null };

export const ASSIGNMENTS_REFUSED =
  "The service places partitions on its workers itself; manual replica assignments are not accepted.";

/** Which Kafka error an INVALID_INPUT refusal becomes, by the REST input field that failed. */
export type InvalidInputCode = (path: string) => number;

/** The REST API's refusal text for a missing scope, as a Kafka authorization failure. */
export function scopeRefused(scope: string, errorCode: number = ErrorCode.TOPIC_AUTHORIZATION_FAILED) {
  return { errorCode, errorMessage: `This API key lacks the ${scope} scope this operation needs.` };
}

/**
 * The Kafka error code for what an api service refused, with the service's own message, so a
 * Kafka client is told exactly what a REST caller would be. Anything that is not a refusal goes
 * through the partition-error mapping (a data-plane failure, which keeps its message).
 */
export function adminErrorOf(error: unknown, invalidInput: InvalidInputCode): AdminOutcome {
  if (!(error instanceof AppError)) {
    const { errorCode, message } = kafkaErrorOf(error);
    // An unexpected failure's text is internal (a database error, a stack's message).
    if (errorCode === ErrorCode.UNKNOWN_SERVER_ERROR) return { errorCode, errorMessage: "Internal error." };
    return { errorCode, errorMessage: message };
  }
  const errorMessage = error.message;
  switch (error.code) {
    case "INVALID_INPUT":
      return { errorCode: invalidInput(String(error.details.path ?? "")), errorMessage };
    case "INVALID_CONFIG":
      return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage };
    case "TOPIC_EXISTS":
      return { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage };
    case "TOPIC_NOT_FOUND":
    case "PARTITION_NOT_FOUND":
      return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage };
    case "INSUFFICIENT_SCOPE":
      return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage };
    case "OFFSET_OUT_OF_RANGE":
      return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, errorMessage };
    // Kafka's policies (CreateTopicPolicy, AlterConfigPolicy) refuse with POLICY_VIOLATION; the
    // frozen partition count and the tenant's quota are ours.
    case "POLICY_VIOLATION":
    case "PARTITIONS_FROZEN":
    case "QUOTA_EXCEEDED":
      return { errorCode: ErrorCode.POLICY_VIOLATION, errorMessage };
    case "PARTITION_UNAVAILABLE":
      return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, errorMessage };
    default:
      return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage };
  }
}
