import { AppError, type AppErrorCode } from "@lastword/api/topic-admin";
import { ErrorCode } from "@lastword/kafka-protocol";
import { type KafkaAct, refusal, refusedCode } from "../kafka-authorization";
import type { KafkaSession } from "../kafka-context";
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

/** For inputs that name their topic in `topic`: a bad name is INVALID_TOPIC_EXCEPTION, any other field `otherwise`. */
export const topicOr =
  (otherwise: number): InvalidInputCode =>
  (path) =>
    path === "topic" ? ErrorCode.INVALID_TOPIC_EXCEPTION : otherwise;

/**
 * The session key's refusal of `act` on the resource `name` (kafka-authorization.ts decides), with
 * the REST API's refusal text as the Kafka authorization failure's message; null when it may.
 */
export function actRefused(session: KafkaSession, act: KafkaAct, name?: string): AdminOutcome | null {
  const refused = refusal(session, act, name === undefined ? {} : { name });
  return refused ? { errorCode: refusedCode(act), errorMessage: refused.message } : null;
}

/** OK once `change` has run, else what it threw as `adminErrorOf` maps it. */
export async function outcomeOf(
  change: () => Promise<unknown>,
  invalidInput: InvalidInputCode,
): Promise<AdminOutcome> {
  try {
    await change();
    return OK;
  } catch (error) {
    return adminErrorOf(error, invalidInput);
  }
}

const KAFKA_CODE_BY_APP_CODE: Partial<Record<AppErrorCode, number>> = {
  INVALID_CONFIG: ErrorCode.INVALID_CONFIG,
  TOPIC_EXISTS: ErrorCode.TOPIC_ALREADY_EXISTS,
  TOPIC_NOT_FOUND: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  PARTITION_NOT_FOUND: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  INSUFFICIENT_SCOPE: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
  // A protected topic (the schema registry's `_schemas`): Kafka refuses internal topics to clients so.
  FORBIDDEN: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
  OFFSET_OUT_OF_RANGE: ErrorCode.OFFSET_OUT_OF_RANGE,
  // Kafka's policies (CreateTopicPolicy, AlterConfigPolicy) refuse with POLICY_VIOLATION; the
  // frozen partition count and the tenant's quota are ours.
  POLICY_VIOLATION: ErrorCode.POLICY_VIOLATION,
  PARTITIONS_FROZEN: ErrorCode.POLICY_VIOLATION,
  QUOTA_EXCEEDED: ErrorCode.POLICY_VIOLATION,
  PARTITION_UNAVAILABLE: ErrorCode.NOT_LEADER_OR_FOLLOWER,
};

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
  const errorCode =
    error.code === "INVALID_INPUT"
      ? invalidInput(String(error.details.path ?? ""))
      : (KAFKA_CODE_BY_APP_CODE[error.code] ?? ErrorCode.UNKNOWN_SERVER_ERROR);
  return { errorCode, errorMessage: error.message };
}
