import { isProtectedTopic } from "@lastword/api/topic-admin";
import { recordUsage } from "@lastword/api/usage-counter";
import { ErrorCode, type RequestBody, type ResponseInput } from "@lastword/kafka-protocol";
import { CorruptBatchError, InvalidBatchRecordsError, InvalidTimestampError } from "@lastword/logstore";
import { OFF_PRODUCER_EPOCH, OFF_PRODUCER_ID } from "@lastword/record-batch";
import { produce } from "../hosting/write-path";
import { refusal as refusalOf } from "./kafka-authorization";
import type { KafkaBrokerContext, KafkaSession } from "./kafka-context";
import { kafkaErrorOf, notHostedError } from "./kafka-errors";
import { viewWriteRefusal } from "./latest-view";
import { type PartitionPayload, partitionPayload } from "./produce-batches";
import type { RequestInflation } from "./produce-inflation";
import { transactionalIdRefused } from "./transactions/txn-handlers";
import { TxnProduceCheck } from "./transactions/txn-produce-check";

type ProduceRequest = RequestBody<0>;
type ProduceResponse = ResponseInput<0>;
type TopicData = ProduceRequest["topicData"][number];
type PartitionData = TopicData["partitionData"][number];
type PartitionResponse = NonNullable<
  NonNullable<ProduceResponse["responses"]>[number]["partitionResponses"]
>[number];

function failed(index: number, errorCode: number, errorMessage: string | null): PartitionResponse {
  return {
    index,
    errorCode,
    baseOffset: -1n,
    logAppendTimeMs: -1n,
    logStartOffset: -1n,
    recordErrors: [],
    errorMessage,
  };
}

/** Kafka's per-record error for a null key on a compacted topic (LogValidator.validateKey's wording). */
function keylessRefusal(where: string, indexes: readonly number[], index: number): PartitionResponse {
  const message = `Compacted topic cannot accept message without key in topic partition ${where}.`;
  return recordsRefusal(index, ErrorCode.INVALID_RECORD, message, indexes);
}

/** A partition refused for some of its batch's records, each named (Produce v8+ record errors). */
function recordsRefusal(
  index: number,
  errorCode: number,
  message: string,
  indexes: readonly number[],
): PartitionResponse {
  return {
    ...failed(index, errorCode, message),
    recordErrors: indexes.map((batchIndex) => ({ batchIndex, batchIndexErrorMessage: message })),
  };
}

async function producePartition(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  topicName: string,
  data: PartitionData,
  inflation: RequestInflation,
  txn: TxnProduceCheck | null,
  inspected: () => void,
): Promise<{ response: PartitionResponse; appended: boolean }> {
  const refusal = (response: PartitionResponse) => ({ response, appended: false });
  const refused = refusalOf(session, "Produce", { name: topicName });
  if (refused) {
    return refusal(failed(data.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED, refused.message));
  }
  const topic = await ctx.catalog.topic(session.principal.tenantId, topicName);
  const partition = topic?.partitions.find((p) => p.index === data.index);
  if (!topic) {
    const view = await viewWriteRefusal(ctx.catalog, session.principal.tenantId, topicName);
    if (view) return refusal(failed(data.index, view.errorCode, view.errorMessage));
  }
  if (!topic || !partition) return refusal(failed(data.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null));
  if (isProtectedTopic(topicName)) {
    const message = `topic ${topicName} holds the schema registry's state and is written only through the registry`;
    return refusal(failed(data.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED, message));
  }
  if (!ctx.host.slot(partition.id)) {
    const errorCode = notHostedError(ctx.host, partition.id);
    const message =
      errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        ? `topic ${topicName} was deleted`
        : "this broker does not lead the partition";
    return refusal(failed(data.index, errorCode, message));
  }
  const payload = await partitionPayload(data.records, topic.config, version, inflation, txn !== null);
  inspected();
  if ("errorCode" in payload) {
    return refusal({
      ...failed(data.index, payload.errorCode, payload.message),
      recordErrors: payload.recordErrors ?? [],
    });
  }
  if (txn) {
    const refused = await txn.refusal(partition.id, producerOf(payload));
    if (refused) return refusal(failed(data.index, refused.errorCode, refused.message));
  }
  try {
    // The data plane's own append: the same fencing, validation, tombstone audit and wake-ups;
    // an as-sent batch carries its producer fields in its header, re-encoded records beside them.
    const answer =
      payload.kind === "as-sent"
        ? await produce(
            ctx.host,
            ctx.audit,
            partition.id,
            Promise.resolve({ batch: payload.batch, inflated: payload.inflated }),
            { fault: ctx.fault },
          )
        : await produce(ctx.host, ctx.audit, partition.id, Promise.resolve(payload.records), {
            producer: payload.producer,
            compression: payload.codec,
            transactional: payload.transactional,
            fault: ctx.fault,
          });
    return {
      response: {
        index: data.index,
        errorCode: 0,
        // A resend of a batch already in the log gets the offsets its first append got.
        baseOffset: BigInt(answer.baseOffset),
        logAppendTimeMs: -1n,
        logStartOffset: BigInt(answer.logStartOffset),
        recordErrors: [],
        errorMessage: null,
      },
      appended: !answer.duplicate,
    };
  } catch (error) {
    if (error instanceof InvalidTimestampError) {
      return refusal(
        recordsRefusal(data.index, ErrorCode.INVALID_TIMESTAMP, error.message, error.recordIndexes),
      );
    }
    if (error instanceof InvalidBatchRecordsError) {
      return refusal(keylessRefusal(`${topicName}-${data.index}`, error.recordIndexes, data.index));
    }
    if (error instanceof CorruptBatchError) {
      return refusal(failed(data.index, ErrorCode.CORRUPT_MESSAGE, error.message));
    }
    const { errorCode, message } = kafkaErrorOf(error);
    if (errorCode === ErrorCode.UNKNOWN_SERVER_ERROR)
      ctx.logger.error({ err: error, topic: topicName }, "kafka produce failed");
    return refusal(failed(data.index, errorCode, message));
  }
}

/** The producer a partition's batch names (a transactional batch always names one: produce-batches.ts). */
function producerOf(payload: PartitionPayload): { producerId: number; producerEpoch: number } {
  if (payload.kind === "re-encoded") {
    return {
      producerId: payload.producer?.producerId ?? -1,
      producerEpoch: payload.producer?.producerEpoch ?? -1,
    };
  }
  return {
    producerId: Number(payload.batch.readBigInt64BE(OFF_PRODUCER_ID)),
    producerEpoch: payload.batch.readInt16BE(OFF_PRODUCER_EPOCH),
  };
}

/** What the connection does instead of answering, under a `drop: "after-append"` test fault. */
export const DROP_CONNECTION = Symbol("drop the connection unanswered");

/**
 * Produce v0–v9: each partition's batch validated, then appended as one append (consecutive
 * offsets, durable when answered: acks 1 and -1 mean the same on a log that fsyncs per append).
 * `null` means no answer at all (acks=0).
 */
export async function handleProduce(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  version: number,
  request: ProduceRequest,
): Promise<ProduceResponse | null | typeof DROP_CONNECTION> {
  const { transactionalId } = request;
  if (transactionalId !== null && transactionalIdRefused(session)) {
    const responses = request.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) =>
        failed(
          p.index,
          ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
          "the key may not use transactional ids",
        ),
      ),
    }));
    return request.acks === 0 ? null : { responses, throttleTimeMs: 0 };
  }
  const txn =
    transactionalId === null
      ? null
      : new TxnProduceCheck(ctx.txnStates, session.principal.tenantId, transactionalId);
  const validAcks = request.acks === 0 || request.acks === 1 || request.acks === -1;
  let appended = false;
  const inflation = await ctx.inflation.forRequest(session.principal.tenantId);
  // The produce quota's round trip (Redis) runs beside the appends rather than after them: it needs
  // only the bytes the request's batches hold inflated, known once every batch was inspected. So a
  // quiet tenant's produce waits for the slower of the two, not their sum (the noisy-neighbour
  // bench's tail under another tenant's flood).
  const allInspected = countdown(request.topicData.reduce((n, t) => n + t.partitionData.length, 0));
  const throttled = allInspected.done.then(() => {
    if (!validAcks) return 0;
    // In inflated bytes: what the batches cost the worker, not what they cost the wire. The same
    // bytes go to the tenant's day counter (the overview's "Produced today (Kafka)"), write-behind.
    void recordUsage(ctx, session.principal.tenantId, { kafkaProducedBytes: inflation.chargedBytes });
    return produceThrottle(ctx, session, inflation.chargedBytes);
  });
  const responses = await Promise.all(
    request.topicData.map(async (t) => ({
      name: t.name,
      partitionResponses: await Promise.all(
        t.partitionData.map(async (p) => {
          const inspected = allInspected.one();
          try {
            if (!validAcks)
              return failed(p.index, ErrorCode.INVALID_REQUIRED_ACKS, "acks must be -1, 0 or 1");
            const outcome = await producePartition(
              ctx,
              session,
              version,
              t.name,
              p,
              inflation,
              txn,
              inspected,
            );
            appended ||= outcome.appended;
            return outcome.response;
          } finally {
            inspected();
          }
        }),
      ),
    })),
  );
  if (appended && ctx.testFaults?.takeDropAfterAppend()) {
    ctx.logger.warn("injected a test fault: a Produce answer dropped");
    return DROP_CONNECTION;
  }
  // Counted beside the appends, never instead of them: over the quota the records still land.
  const throttleTimeMs = await throttled;
  session.throttle(throttleTimeMs, "produceBytesPerSecond");
  // The pool threads' time inflating this request's batches: work it made the worker do, off the
  // loop but on its cores, charged to the tenant's request-time quota with the loop time.
  session.charge("requestTimeMsPerSecond", inflation.threadMs);
  return request.acks === 0 ? null : { responses, throttleTimeMs };
}

/**
 * Counts `total` partitions' batches inspected: `one()` hands out a partition's mark (idempotent,
 * so a refusal before inspection and the `finally` after it count once); `done` resolves with the last.
 */
function countdown(total: number): { done: Promise<void>; one: () => () => void } {
  let left = total;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  if (left === 0) finish();
  return {
    done,
    one: () => {
      let counted = false;
      return () => {
        if (counted) return;
        counted = true;
        if (--left === 0) finish();
      };
    },
  };
}

/** The tenant's produce quota counts the record batches' inflated bytes, as REST counts its request's. */
function produceThrottle(ctx: KafkaBrokerContext, session: KafkaSession, bytes: number) {
  if (!ctx.quotas) return Promise.resolve(0);
  return ctx.quotas.produced(session.principal.tenantId, bytes);
}
