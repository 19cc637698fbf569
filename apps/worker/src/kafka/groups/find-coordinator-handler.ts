import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { refusal, refusedCode } from "../kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";

type FindCoordinatorRequest = RequestBody<10>;
type FindCoordinatorResponse = ResponseInput<10>;

const GROUP_KEY = 0;
const TRANSACTION_KEY = 1;

interface Answer {
  key: string;
  nodeId: number;
  host: string;
  port: number;
  errorCode: number;
  errorMessage: string | null;
}

async function findOne(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  keyType: number,
  key: string,
): Promise<Answer> {
  const none = { key, nodeId: -1, host: "", port: -1 };
  if (keyType === TRANSACTION_KEY) return findTransactionCoordinator(ctx, session, key);
  if (keyType !== GROUP_KEY) {
    return { ...none, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown key type ${keyType}.` };
  }
  const refused = refusal(session, "FindCoordinator", { name: key });
  if (refused) return { ...none, errorCode: refusedCode("FindCoordinator"), errorMessage: refused.message };
  if (key === "")
    return { ...none, errorCode: ErrorCode.INVALID_GROUP_ID, errorMessage: "The group id is empty." };
  const found = await ctx.groups.find(session.principal.tenantId, key);
  if (!found.broker) return { ...none, errorCode: found.errorCode, errorMessage: found.message };
  const { nodeId, host, port } = found.broker;
  return { key, nodeId, host, port, errorCode: 0, errorMessage: null };
}

/** A transactional id's coordinator: the worker holding its lease (claimed here when free). */
async function findTransactionCoordinator(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  key: string,
): Promise<Answer> {
  const none = { key, nodeId: -1, host: "", port: -1 };
  const refused = refusal(session, "FindTransactionCoordinator");
  if (refused) {
    return { ...none, errorCode: refusedCode("FindTransactionCoordinator"), errorMessage: refused.message };
  }
  if (key === "") {
    return { ...none, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: "The transactional id is empty." };
  }
  const found = await ctx.transactions.find(session.principal.tenantId, key);
  if (!found.broker) return { ...none, errorCode: found.errorCode, errorMessage: found.message };
  const { nodeId, host, port } = found.broker;
  return { key, nodeId, host, port, errorCode: 0, errorMessage: null };
}

/**
 * FindCoordinator v0–v4 (v4 batches keys): the worker holding the group's (key type 0) or the
 * transactional id's (key type 1) coordinator lease, both scoped to the key's tenant.
 */
export async function handleFindCoordinator(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: FindCoordinatorRequest,
): Promise<FindCoordinatorResponse> {
  if (version >= 4) {
    const coordinators = await Promise.all(
      request.coordinatorKeys.map((key) => findOne(ctx, session, request.keyType, key)),
    );
    return { throttleTimeMs: 0, coordinators };
  }
  const one = await findOne(ctx, session, request.keyType, request.key);
  return { throttleTimeMs: 0, ...one };
}
