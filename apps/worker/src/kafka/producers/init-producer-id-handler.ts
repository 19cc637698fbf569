import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { allowed, refusedCode } from "../kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";
import { initTransactionalProducer } from "../transactions/txn-handlers";

type InitProducerIdRequest = RequestBody<22>;
type InitProducerIdResponse = ResponseInput<22>;

const NO_PRODUCER_ID = -1n;
const NO_PRODUCER_EPOCH = -1;
/** KIP-588: from v4 a fenced producer is told PRODUCER_FENCED, before it INVALID_PRODUCER_EPOCH. */
const PRODUCER_FENCED_SINCE = 4;

function refused(errorCode: number): InitProducerIdResponse {
  return { throttleTimeMs: 0, errorCode, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
}

/**
 * InitProducerId v0–v4 for idempotent producers: a fresh producer id (epoch 0) from the shared
 * sequence, or, when a v3+ client passes its current id and epoch, the same id with the epoch
 * bumped (KIP-360; the client then restarts its sequences at 0). Every worker answers it the same
 * way. With a transactional id it is the transaction coordinator's (transactions/txn-handlers.ts).
 */
export async function handleInitProducerId(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  apiVersion: number,
  request: InitProducerIdRequest,
): Promise<InitProducerIdResponse> {
  const { transactionalId } = request;
  if (transactionalId !== null) {
    return initTransactionalProducer(ctx, session, apiVersion, { ...request, transactionalId });
  }
  // Kafka asks for idempotent-write rights: here, the right to produce at all.
  if (!allowed(session, "InitProducerId")) return refused(refusedCode("InitProducerId"));
  const { tenantId } = session.principal;
  const givenId = request.producerId ?? NO_PRODUCER_ID;
  const givenEpoch = request.producerEpoch ?? NO_PRODUCER_EPOCH;
  if ((givenId === NO_PRODUCER_ID) !== (givenEpoch === NO_PRODUCER_EPOCH))
    return refused(ErrorCode.INVALID_REQUEST);
  // Our ids come from a Postgres bigint sequence and are sent as JS numbers: one outside the safe
  // integers (2^63−1, say) or below −1 was never issued. As Kafka does for any producer id of a
  // non-transactional InitProducerId it does not know, the producer gets a fresh id.
  const knowable = givenId > NO_PRODUCER_ID && givenId <= BigInt(Number.MAX_SAFE_INTEGER);
  if (knowable) {
    const bump = await ctx.producerIds.bump(tenantId, Number(givenId), givenEpoch);
    if (bump.kind === "fenced") {
      return refused(
        apiVersion >= PRODUCER_FENCED_SINCE ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH,
      );
    }
    if (bump.kind === "bumped") {
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        producerId: BigInt(bump.producerId),
        producerEpoch: bump.producerEpoch,
      };
    }
  }
  const issued = await ctx.producerIds.issue(tenantId);
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    producerId: BigInt(issued.producerId),
    producerEpoch: issued.producerEpoch,
  };
}
