import { tenantQuota } from "@lastword/api/tenant-quota";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { refusal, refusedCode } from "../kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "../kafka-context";
import type { TxnOutcome } from "./txn-coordinator";
import { TxnLeaseMovedError, type TxnPartition } from "./txn-state.repository";

// The transaction coordinator's Kafka APIs (InitProducerId with a transactional id,
// AddPartitionsToTxn, AddOffsetsToTxn, EndTxn): each checks the key's right to the id, finds the
// id's lease here (else NOT_COORDINATOR: the client looks the coordinator up again) and hands the
// decision to the coordinator. TxnOffsetCommit goes to the group's coordinator (txn-offset-commit-handler.ts).

/** KIP-588: clients before these versions know PRODUCER_FENCED as INVALID_PRODUCER_EPOCH (Kafka's KafkaApis). */
const PRODUCER_FENCED_SINCE = { initProducerId: 4, addPartitions: 2, addOffsets: 2, endTxn: 2 } as const;

/**
 * Whether the key may use transactional ids at all (Kafka's TransactionalId WRITE): asked by every
 * API that names one, answered TRANSACTIONAL_ID_AUTHORIZATION_FAILED where Kafka answers it.
 */
export function transactionalIdRefused(session: KafkaSession): boolean {
  return refusal(session, "InitTransactions") !== null;
}

/** A coordinator outcome as the request's version spells it. */
export function versioned(outcome: TxnOutcome, version: number, fencedSince: number): number {
  if (outcome !== "fenced") return outcome;
  return version >= fencedSince ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH;
}

/** Runs a coordinator call, turning a lease lost mid-way into NOT_COORDINATOR and a failure into a retriable code. */
async function coordinated(
  ctx: KafkaBrokerContext,
  transactionalId: string,
  run: () => Promise<TxnOutcome>,
): Promise<TxnOutcome> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof TxnLeaseMovedError) return ErrorCode.NOT_COORDINATOR;
    ctx.logger.warn({ err: error, transactionalId }, "transaction coordinator request failed");
    return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  }
}

type InitProducerIdResponse = ResponseInput<22>;

/**
 * InitProducerId v0–v4 with a transactional id: `transaction.timeout.ms` within the tenant's
 * maximum, then the id's producer id at a bumped epoch (txn-coordinator.ts).
 */
export async function initTransactionalProducer(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: RequestBody<22> & { transactionalId: string },
): Promise<InitProducerIdResponse> {
  const answer = (errorCode: number, producerId = -1, producerEpoch = -1): InitProducerIdResponse => ({
    throttleTimeMs: 0,
    errorCode,
    producerId: BigInt(producerId),
    producerEpoch,
  });
  const { transactionalId } = request;
  if (transactionalIdRefused(session)) return answer(refusedCode("InitTransactions"));
  if (transactionalId === "") return answer(ErrorCode.INVALID_REQUEST);
  const { tenantId } = session.principal;
  const quota = await tenantQuota({ prisma: ctx.prisma, clock: ctx.clock }, tenantId);
  if (request.transactionTimeoutMs <= 0 || request.transactionTimeoutMs > quota.maxTransactionTimeoutMs) {
    return answer(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  }
  const lease = ctx.transactions.lease(tenantId, transactionalId);
  if (!lease) return answer(ErrorCode.NOT_COORDINATOR);
  const givenId = request.producerId ?? -1n;
  const givenEpoch = request.producerEpoch ?? -1;
  if ((givenId === -1n) !== (givenEpoch === -1)) return answer(ErrorCode.INVALID_REQUEST);
  const given = givenId === -1n ? null : { producerId: Number(givenId), producerEpoch: givenEpoch };
  const issued: { producerId: number; producerEpoch: number }[] = [];
  const outcome = await coordinated(ctx, transactionalId, async () => {
    const result = await ctx.transactions.initProducerId(lease, request.transactionTimeoutMs, given);
    if (!result.ok) return result.errorCode;
    issued.push(result);
    return 0;
  });
  const [producer] = issued;
  if (outcome === 0 && producer) return answer(0, producer.producerId, producer.producerEpoch);
  return answer(versioned(outcome, version, PRODUCER_FENCED_SINCE.initProducerId));
}

type AddPartitionsRequest = RequestBody<24>;
type AddPartitionsResponse = ResponseInput<24>;

/**
 * AddPartitionsToTxn v0–v3: every partition must exist and be writable by the key, else none is
 * added (the refused ones named, the rest OPERATION_NOT_ATTEMPTED, as Kafka answers).
 */
export async function handleAddPartitionsToTxn(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: AddPartitionsRequest,
): Promise<AddPartitionsResponse> {
  const transactionalId = request.v3AndBelowTransactionalId;
  const topics = request.v3AndBelowTopics;
  const each = (code: (topic: string, partition: number) => number): AddPartitionsResponse => ({
    throttleTimeMs: 0,
    resultsByTopicV3AndBelow: topics.map((t) => ({
      name: t.name,
      resultsByPartition: t.partitions.map((p) => ({
        partitionIndex: p,
        partitionErrorCode: code(t.name, p),
      })),
    })),
  });
  if (transactionalIdRefused(session)) return each(() => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const { tenantId } = session.principal;
  const refused = new Map<string, number>();
  const partitions: TxnPartition[] = [];
  for (const t of topics) {
    const topic = refusal(session, "AddPartitionsToTxn", { name: t.name })
      ? null
      : await ctx.catalog.topic(tenantId, t.name);
    for (const p of t.partitions) {
      const partition = topic?.partitions.find((x) => x.index === p);
      if (!topic) {
        const code = refusal(session, "AddPartitionsToTxn", { name: t.name })
          ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
          : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        refused.set(`${t.name}\0${p}`, code);
      } else if (!partition) refused.set(`${t.name}\0${p}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      else partitions.push({ partitionId: partition.id, topic: t.name, partition: p });
    }
  }
  if (refused.size > 0) {
    return each((topic, p) => refused.get(`${topic}\0${p}`) ?? ErrorCode.OPERATION_NOT_ATTEMPTED);
  }
  const lease = ctx.transactions.lease(tenantId, transactionalId);
  if (!lease) return each(() => ErrorCode.NOT_COORDINATOR);
  const outcome = await coordinated(ctx, transactionalId, () =>
    ctx.transactions.addPartitions(
      lease,
      Number(request.v3AndBelowProducerId),
      request.v3AndBelowProducerEpoch,
      partitions,
    ),
  );
  const code = versioned(outcome, version, PRODUCER_FENCED_SINCE.addPartitions);
  return each(() => code);
}

/** The answer of an API whose body is an error code alone (AddOffsetsToTxn, EndTxn). */
const codeAnswer = (errorCode: number) => ({ throttleTimeMs: 0, errorCode });

/** AddOffsetsToTxn v0–v3: the transaction will carry the group's offsets (`groups:write` on it). */
export async function handleAddOffsetsToTxn(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: RequestBody<25>,
): Promise<ResponseInput<25>> {
  if (refusal(session, "AddOffsetsToTxn", { name: request.groupId })) {
    return codeAnswer(refusedCode("AddOffsetsToTxn"));
  }
  if (transactionalIdRefused(session)) return codeAnswer(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  const lease = ctx.transactions.lease(session.principal.tenantId, request.transactionalId);
  if (!lease) return codeAnswer(ErrorCode.NOT_COORDINATOR);
  const outcome = await coordinated(ctx, request.transactionalId, () =>
    ctx.transactions.addPartitions(lease, Number(request.producerId), request.producerEpoch, []),
  );
  return codeAnswer(versioned(outcome, version, PRODUCER_FENCED_SINCE.addOffsets));
}

/** EndTxn v0–v3: commit or abort the open transaction. */
export async function handleEndTxn(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: RequestBody<26>,
): Promise<ResponseInput<26>> {
  if (refusal(session, "EndTxn")) return codeAnswer(refusedCode("EndTxn"));
  const lease = ctx.transactions.lease(session.principal.tenantId, request.transactionalId);
  if (!lease) return codeAnswer(ErrorCode.NOT_COORDINATOR);
  const outcome = await coordinated(ctx, request.transactionalId, () =>
    ctx.transactions.endTxn(lease, Number(request.producerId), request.producerEpoch, request.committed),
  );
  return codeAnswer(versioned(outcome, version, PRODUCER_FENCED_SINCE.endTxn));
}
