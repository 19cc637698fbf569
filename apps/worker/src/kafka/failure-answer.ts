import { isDatabaseUnreachable, someDatabaseCause } from "@lastword/api/key-auth";
import { ApiKey, type DecodedRequest, ErrorCode } from "@lastword/kafka-protocol";

/** Kafka's own text for UNKNOWN_SERVER_ERROR; what failed is in the worker's log, not the answer. */
const UNKNOWN_SERVER_ERROR_MESSAGE =
  "The server experienced an unexpected error when processing the request.";

/** The APIs a group coordinator answers: during an outage their clients look for it again. */
const COORDINATOR_APIS = new Set<number>([
  ApiKey.FindCoordinator,
  ApiKey.JoinGroup,
  ApiKey.SyncGroup,
  ApiKey.Heartbeat,
  ApiKey.LeaveGroup,
  ApiKey.OffsetCommit,
  ApiKey.OffsetFetch,
  ApiKey.DescribeGroups,
  ApiKey.ListGroups,
  ApiKey.DeleteGroups,
  ApiKey.OffsetDelete,
]);

export interface FailureAnswer {
  errorCode: number;
  message: string;
  /** False for a failure nothing explains (a bug): logged as an error, the rest as warnings. */
  explained: boolean;
}

/**
 * What a well-framed request whose handler threw is answered, on every topic, partition or group
 * it named (`errorResponse`). Two failures have a better answer than Kafka's catch-all
 * UNKNOWN_SERVER_ERROR, which standard clients do not retry:
 * - Postgres unreachable (an outage, a statement that got no answer in time): retriable —
 *   COORDINATOR_NOT_AVAILABLE for the group APIs (clients look for the coordinator again, as after
 *   a coordinator move) and REQUEST_TIMED_OUT for the rest, so clients retry through the outage
 *   instead of failing (packages/api/DESIGN.md, "Outages").
 * - A string Postgres cannot store (a group id, a transactional id or another name holding NUL,
 *   U+0000, which Kafka would accept but no Postgres text can hold): INVALID_REQUEST saying so —
 *   bad input, not a server error, and nothing was changed.
 */
export function failureAnswer(request: DecodedRequest, error: unknown): FailureAnswer {
  if (holdsNul(error)) {
    return {
      errorCode: ErrorCode.INVALID_REQUEST,
      message:
        "A name or id in the request contains a NUL character (U+0000), which this service cannot store; nothing was changed.",
      explained: true,
    };
  }
  if (isDatabaseUnreachable(error)) {
    const coordinator = COORDINATOR_APIS.has(request.apiKey);
    return {
      errorCode: coordinator ? ErrorCode.COORDINATOR_NOT_AVAILABLE : ErrorCode.REQUEST_TIMED_OUT,
      message: "The service's metadata store did not answer in time; retry.",
      explained: true,
    };
  }
  return {
    errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
    message: UNKNOWN_SERVER_ERROR_MESSAGE,
    explained: false,
  };
}

/**
 * True when `error` (or a cause of it, or Prisma's driver error inside it) is Postgres refusing a
 * NUL in a text value: SQLSTATE 22021 (character_not_in_repertoire) with its 0x00 message, or
 * 22P05 (untranslatable_character) for \u0000 in jsonb.
 */
function holdsNul(error: unknown): boolean {
  return someDatabaseCause(error, (record) => {
    const code = typeof record.code === "string" ? record.code : "";
    const message = typeof record.message === "string" ? record.message : "";
    if (code === "22P05" || (code === "22021" && /0x00/.test(message))) return true;
    return /invalid byte sequence for encoding "UTF8": 0x00/.test(message);
  });
}
