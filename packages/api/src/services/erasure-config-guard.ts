import type { PrismaClient, Topic } from "@lastword/db";
import { DEADLINE_OPEN_STATUSES, formatDate, toStored, WRITTEN_TOMBSTONE_STATUS } from "@lastword/erasure";
import type { Identity } from "../auth/request-identity";
import { AppError } from "../errors/app-error";
import type { ExplicitConfigs } from "./topic-config";
import { topicPreflights } from "./topic-deadline";

/** A pending request a config change would make miss its deadline. */
export interface EndangeredErasure {
  id: string;
  deadlineAt: string;
}

/**
 * DESIGN §5: no config change by a tenant member can make a pending erasure request miss its
 * deadline without an owner's explicit, audited override. For each request still unproven on this
 * topic, the preflight of its oldest unpurged tombstone (written → deadline) is run on the configs
 * before and after: a change after which one that met its deadline no longer does is refused,
 * naming the requests, unless an owner sends `overrideErasureDeadlines` (the caller audits it).
 * Answers the requests the override covers.
 */
export async function erasuresEndangeredBy(
  prisma: PrismaClient,
  identity: Identity,
  topic: Pick<Topic, "id" | "name">,
  before: ExplicitConfigs,
  after: ExplicitConfigs,
  override: boolean,
): Promise<EndangeredErasure[]> {
  const tombstones = await prisma.erasureTombstone.findMany({
    where: {
      organizationId: identity.tenantId,
      topicId: topic.id,
      status: toStored(WRITTEN_TOMBSTONE_STATUS),
      request: { status: { in: DEADLINE_OPEN_STATUSES.map(toStored) } },
    },
    select: { requestId: true, writtenAt: true, deadlineAt: true },
    orderBy: { writtenAt: "asc" },
  });
  const oldest = new Map<string, { writtenAt: Date; deadlineAt: Date }>();
  for (const t of tombstones) if (!oldest.has(t.requestId)) oldest.set(t.requestId, t);
  const endangered: EndangeredErasure[] = [];
  for (const [id, t] of oldest) {
    const windowMs = t.deadlineAt.getTime() - t.writtenAt.getTime();
    const [was, will] = await Promise.all(
      [before, after].map(
        async (configs) =>
          (await topicPreflights(prisma, [{ id: topic.id, configs }], windowMs)).get(topic.id)!,
      ),
    );
    if (was!.meetsDeadline && !will!.meetsDeadline)
      endangered.push({ id, deadlineAt: t.deadlineAt.toISOString() });
  }
  if (endangered.length === 0 || (override && identity.role === "owner")) return endangered;
  const list = endangered.map((e) => `${e.id} (deadline ${formatDate(new Date(e.deadlineAt))})`).join(", ");
  throw new AppError(
    "POLICY_VIOLATION",
    `Topic "${topic.name}" has pending erasure request(s) ${list} that this change would make miss the deadline. ` +
      "Change it after they are purged, or have an owner override it explicitly (overrideErasureDeadlines: true, audited); the erased keys are then still purged in time, overriding the setting for them.",
    {
      details: {
        erasureRequests: endangered,
        overrideRequires: "owner",
        ...(override && { override: "refused: only an owner may override" }),
      },
    },
  );
}
