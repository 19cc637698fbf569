import {
  addPartitions,
  addPartitionsInput,
  apiKeyIdentity,
  deleteRecordsBefore,
  deleteRecordsInput,
  parseAdminInput,
} from "@lastword/api/topic-admin";
import { ErrorCode, type ResponseInput } from "@lastword/kafka-protocol";
import { deleteRecords } from "../../hosting/write-path";
import { allowed } from "../kafka-authorization";
import type { KafkaHandler } from "../kafka-context";
import { viewWriteRefusal } from "../latest-view";
import { ASSIGNMENTS_REFUSED, actRefused, adminErrorOf, outcomeOf, topicOr } from "./admin-errors";

type CreatePartitionsResponse = ResponseInput<37>;

/** DeleteRecords' offset -1: up to the high watermark. */
const HIGH_WATERMARK = -1n;

const partitionsInputCode = topicOr(ErrorCode.INVALID_PARTITIONS);

/**
 * CreatePartitions v0–v3 through the REST API's add-partitions feature: refused on compacted
 * topics with its PARTITIONS_FROZEN reason (POLICY_VIOLATION), allowed on delete-policy topics
 * within the tenant's quota; `validateOnly` changes nothing.
 */
export const handleCreatePartitions: KafkaHandler<37> = async (ctx, session, request) => {
  const identity = apiKeyIdentity(session.principal);
  const results: NonNullable<CreatePartitionsResponse["results"]>[number][] = [];
  for (const wanted of request.topics) {
    const refused =
      actRefused(session, "CreatePartitions", wanted.name) ??
      (await viewWriteRefusal(ctx.catalog, session.principal.tenantId, wanted.name)) ??
      (wanted.assignments !== null && wanted.assignments.length > 0
        ? { errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: ASSIGNMENTS_REFUSED }
        : null);
    const outcome =
      refused ??
      (await outcomeOf(async () => {
        const input = parseAdminInput(addPartitionsInput, { topic: wanted.name, count: wanted.count });
        await addPartitions({ prisma: ctx.prisma, clock: ctx.clock }, identity, {
          ...input,
          validateOnly: request.validateOnly,
        });
      }, partitionsInputCode));
    results.push({ name: wanted.name, ...outcome });
  }
  if (!request.validateOnly) ctx.catalog.invalidate();
  return { throttleTimeMs: 0, results };
};

/**
 * DeleteRecords v0–v2 through the REST API's deleteRecordsBefore (POLICY_VIOLATION on compact-only
 * topics, audited), on the partitions this worker leads; the answer's low watermark is the new
 * log start offset.
 */
export const handleDeleteRecords: KafkaHandler<21> = async (ctx, session, request) => {
  const { tenantId } = session.principal;
  const identity = apiKeyIdentity(session.principal);
  const deps = {
    prisma: ctx.prisma,
    clock: ctx.clock,
    dataPlane: {
      deleteRecords: (input: { partitionId: string; beforeOffset: number }) =>
        deleteRecords(ctx.host, input.partitionId, Promise.resolve(input.beforeOffset)),
    },
  };
  const topics = await Promise.all(
    request.topics.map(async (t) => {
      const mayDelete = allowed(session, "DeleteRecords", { name: t.name });
      const topic = mayDelete ? await ctx.catalog.topic(tenantId, t.name) : null;
      const view = topic || !mayDelete ? null : await viewWriteRefusal(ctx.catalog, tenantId, t.name);
      const partitions = await Promise.all(
        t.partitions.map(async (p) => {
          const answer = (errorCode: number, lowWatermark = -1n) => ({
            partitionIndex: p.partitionIndex,
            lowWatermark,
            errorCode,
          });
          const partition = topic?.partitions.find((x) => x.index === p.partitionIndex);
          if (!mayDelete) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          if (view) return answer(view.errorCode);
          if (!partition) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          if (!ctx.host.slot(partition.id)) return answer(ErrorCode.NOT_LEADER_OR_FOLLOWER);
          try {
            const beforeOffset =
              p.offset === HIGH_WATERMARK
                ? await ctx.host.read(partition.id, async (log) => log.highWatermark)
                : Number(p.offset);
            const input = parseAdminInput(deleteRecordsInput, {
              topic: t.name,
              partition: p.partitionIndex,
              beforeOffset,
            });
            const { logStartOffset } = await deleteRecordsBefore(deps, identity, input);
            return answer(0, BigInt(logStartOffset));
          } catch (error) {
            const { errorCode, errorMessage } = adminErrorOf(error, () => ErrorCode.OFFSET_OUT_OF_RANGE);
            ctx.logger.debug(
              { topic: t.name, partition: p.partitionIndex, errorMessage },
              "delete records refused",
            );
            return answer(errorCode);
          }
        }),
      );
      return { name: t.name, partitions };
    }),
  );
  return { throttleTimeMs: 0, topics };
};
