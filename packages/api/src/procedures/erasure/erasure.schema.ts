import {
  deadlineExtensionSchema,
  erasureStatusSchema,
  preflightSchema,
  scanEvidenceSchema,
  tombstoneStatusSchema,
  waitingForSchema,
} from "@lastword/erasure";
import { z } from "zod";
import { envelopeSchema } from "../../records/envelope";
import { idSchema, storedText } from "../../services/stored-text.schema";
import { topicNameSchema } from "../../services/topic.schema";

const keyEnvelope = z.discriminatedUnion("type", [
  z.object({ type: z.literal("string"), data: z.string().min(1) }),
  z.object({ type: z.literal("base64"), data: z.base64().min(1) }),
]);

export const erasureScopeInput = z.object({
  topics: z.array(topicNameSchema).max(100).optional(),
  allCompacted: z.boolean().optional(),
});

export const createErasureInput = erasureScopeInput.extend({
  keys: z.array(keyEnvelope).min(1).max(100),
  receivedAt: z.iso.datetime().optional(),
  deadlineAt: z.iso.datetime().optional(),
  requester: storedText(200).optional(),
  notes: storedText(4000).optional(),
});

export const laggingGroupSchema = z.object({
  group: z.string(),
  topic: z.string(),
  partition: z.number().int(),
  committedOffset: z.number(),
  tombstoneOffset: z.number(),
  horizonAt: z.string().nullable(),
  horizonNear: z.boolean(),
});

export const missedGroupSchema = z
  .object({
    group: z.string(),
    topic: z.string(),
    partition: z.number().int(),
    tombstoneOffset: z.number(),
    committedOffset: z.number().meta({ description: "The group's committed offset when the tombstone went" }),
    expiredAt: z.string().nullable(),
  })
  .meta({ description: "A group that had not read past a tombstone when it was proven gone" });

export const erasureSummarySchema = z.object({
  id: z.string(),
  status: erasureStatusSchema,
  statusReason: z.string().nullable(),
  subjectKeys: z.array(envelopeSchema),
  scope: z.object({ allCompacted: z.boolean(), topics: z.array(z.string()) }),
  receivedAt: z.string(),
  deadlineAt: z.string(),
  msToDeadline: z.number(),
  requester: z.string().nullable(),
  notes: z.string().nullable(),
  extensions: z.array(deadlineExtensionSchema),
  preflight: z.record(z.string(), preflightSchema),
  closedAt: z.string().nullable(),
});

const keyNameSchema = z
  .object({ text: z.string(), isText: z.boolean(), base64: z.string() })
  .meta({ description: "A subject key as people read it: its text, or 0x… hex for a binary key" });

export const erasureDetailSchema = erasureSummarySchema.extend({
  verdicts: z
    .array(
      z.object({
        key: keyNameSchema,
        topic: z.string(),
        partitions: z.number().int(),
        provenPartitions: z.number().int(),
        valuesLeft: z.number().int().nullable(),
        tiers: z.array(z.string()),
        lastProofAt: z.string().nullable(),
      }),
    )
    .meta({
      description: "One line per key and topic: proven gone or not, where the proofs looked, when last",
    }),
  tombstones: z.array(
    z.object({
      topic: z.string().nullable(),
      partition: z.number().int(),
      offset: z.number(),
      subjectKey: envelopeSchema,
      subjectKeyBase64: z.string(),
      subjectKeyName: keyNameSchema,
      status: tombstoneStatusSchema,
      writtenAt: z.string(),
      passRequestedAt: z.string().nullable(),
      purgedAt: z.string().nullable(),
      expiredAt: z.string().nullable(),
      purgeEvidence: scanEvidenceSchema.nullable(),
      expiryEvidence: scanEvidenceSchema.nullable(),
      waitingFor: waitingForSchema.nullable().meta({
        description: "What this partition's proof waits for now, and when that is expected to be over",
      }),
    }),
  ),
  laggingGroups: z.array(laggingGroupSchema),
  missedGroups: z.array(missedGroupSchema),
  timeline: z.array(
    z.object({
      seq: z.number().int(),
      action: z.string(),
      at: z.string(),
      actorType: z.string(),
      actor: z.object({ type: z.string(), id: z.string().nullable(), name: z.string() }),
      data: z.record(z.string(), z.unknown()),
    }),
  ),
});

export const erasureIdInput = z.object({ id: idSchema });

export const listErasureInput = z.object({
  status: erasureStatusSchema.optional(),
  limit: z.number().int().min(1).max(500).default(100),
});

export const listErasureOutput = z.object({
  requests: z.array(erasureSummarySchema),
  byStatus: z.partialRecord(erasureStatusSchema, z.number().int()),
});

export const extendErasureInput = erasureIdInput.extend({
  deadlineAt: z.iso.datetime(),
  reason: storedText(2000).min(1),
});

export const reverifyErasureOutput = z.object({
  /** True when every partition was proven purged and the request moved to purged. */
  verified: z.boolean(),
  /** Partitions still unproven (a pass was requested on each). */
  unpurgedPartitions: z.number().int(),
  request: erasureDetailSchema,
});

export const exportInput = z.object({ format: z.enum(["json", "csv"]).default("json") });

export const exportOutput = z.object({ filename: z.string(), contentType: z.string(), content: z.string() });

export const preflightInput = erasureScopeInput.extend({ deadlineAt: z.iso.datetime().optional() });

export const preflightOutput = z.object({
  deadlineAt: z.string(),
  topics: z.array(z.object({ topic: z.string(), preflight: preflightSchema })),
});

export const erasureTopicsOutput = z.object({
  deadlineDays: z.number(),
  topics: z.array(
    z.object({
      topic: z.string(),
      preflight: preflightSchema,
      pendingTombstones: z.number().int(),
      laggingGroups: z.array(laggingGroupSchema),
    }),
  ),
});

export const auditVerifyOutput = z.object({
  ok: z.boolean(),
  events: z.number().int(),
  firstBrokenSeq: z.number().int().nullable(),
  firstBroken: z
    .object({
      seq: z.number().int(),
      action: z.string(),
      createdAt: z.string(),
      targetType: z.string(),
      targetId: z.string().nullable(),
    })
    .nullable(),
});
