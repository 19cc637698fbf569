import { z } from "zod";
import { listAuditEvents } from "../../services/audit-list.service";
import { storedText } from "../../services/stored-text.schema";
import { protectedProcedure } from "../../trpc/access";

const auditActorSchema = z.object({
  type: z.string().meta({ description: "user | apiKey | system" }),
  id: z.string().nullable(),
  name: z.string().meta({
    description: "A member's name and e-mail, an API key's name and its creator, or the system's id",
  }),
});

export const listAuditInput = z.object({
  action: z
    .string()
    .max(100)
    .optional()
    .meta({ description: 'An action, or a prefix ending in "." ("erasure." for every erasure event)' }),
  actorType: z.enum(["user", "apiKey", "system"]).optional(),
  actorId: storedText(100).optional(),
  targetType: storedText(50).optional(),
  targetId: storedText(100).optional(),
  since: z.iso.datetime().optional(),
  until: z.iso.datetime().optional(),
  beforeSeq: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const listAuditOutput = z.object({
  events: z.array(
    z.object({
      seq: z.number().int(),
      at: z.string(),
      action: z.string(),
      actor: auditActorSchema,
      targetType: z.string(),
      targetId: z.string().nullable(),
      data: z.record(z.string(), z.unknown()),
      prevHash: z.string(),
      hash: z.string(),
    }),
  ),
  nextBeforeSeq: z.number().int().nullable(),
});

export const listAuditProcedure = protectedProcedure("erasure:read")
  .meta({
    openapi: {
      method: "GET",
      path: "/audit/events",
      tags: ["audit"],
      summary: "The tenant's audit trail, newest first, filtered, each event's actor named",
    },
  })
  .input(listAuditInput)
  .output(listAuditOutput)
  .query(({ ctx, input }) => listAuditEvents(ctx.deps, ctx.identity, input));
