import type { PrismaClient } from "@lastword/db";
import { z } from "zod";
import type { Identity } from "../auth/request-identity";
import { type AuditActorName, auditActorNames } from "./audit-actors";
import { findTopic } from "./topic.service";
import type { ConfigChange } from "./topic-admin.service";

/** The audit actions that set a topic's configs: its creation and every alteration since. */
const CONFIG_ACTIONS = ["topic.created", "topic.configs.altered"] as const;

const createdData = z.object({
  configs: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
});
const alteredData = z.object({
  changes: z
    .array(z.object({ name: z.string(), before: z.string().nullable(), after: z.string().nullable() }))
    .default([]),
});

export interface ConfigHistoryEntry {
  seq: number;
  at: string;
  action: "created" | "altered";
  actor: AuditActorName;
  changes: ConfigChange[];
}

function changesOf(action: string, data: unknown): ConfigChange[] {
  if (action === "topic.created") {
    const { configs } = createdData.parse(data ?? {});
    return Object.entries(configs)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, value]) => ({ name, before: null, after: String(value) }));
  }
  return alteredData.parse(data ?? {}).changes;
}

/**
 * A topic's config history, newest first, read from the tenant's audit chain: every change, over
 * REST, the console or Kafka's AlterConfigs, is audited with its before/after diff in the same
 * transaction that makes it, so the chain is the history and nothing is recorded twice.
 */
export async function listConfigHistory(
  deps: { prisma: PrismaClient },
  identity: Identity,
  input: { topic: string; limit: number },
): Promise<{ entries: ConfigHistoryEntry[] }> {
  const topic = await findTopic(deps.prisma, identity.tenantId, input.topic);
  const events = await deps.prisma.auditEvent.findMany({
    where: {
      organizationId: identity.tenantId,
      targetType: "topic",
      targetId: topic.id,
      action: { in: [...CONFIG_ACTIONS] },
    },
    orderBy: { seq: "desc" },
    take: input.limit,
  });
  const nameOf = await auditActorNames(deps.prisma, identity.tenantId, events);
  return {
    entries: events.map((event) => ({
      seq: event.seq,
      at: event.createdAt.toISOString(),
      action: event.action === "topic.created" ? "created" : "altered",
      actor: nameOf(event),
      changes: changesOf(event.action, event.data),
    })),
  };
}
