import type { PrismaClient } from "@lastword/db";

/** Who did something, as the audit trail's readers see it. */
export interface AuditActorName {
  type: string;
  id: string | null;
  /** In words: "Ada Lovelace <ada@example.com>", `API key "deploy" (created by …)`, "system (worker-1a2b)". */
  name: string;
}

/** One actor, as an audit event records it. */
export interface ActorRef {
  actorType: string;
  actorId: string | null;
}

function person(user: { name: string; email: string } | undefined): string | null {
  return user ? `${user.name} <${user.email}>` : null;
}

/**
 * Names every actor of `actors` in one round trip per kind: a member by name and e-mail, an API
 * key by its name and the member who created it, the system (a worker or the control plane) by the
 * id it recorded. Only this tenant's members and keys are looked up; someone who has left (or a key
 * since deleted) is named by id.
 */
export async function auditActorNames(
  prisma: PrismaClient,
  tenantId: string,
  actors: readonly ActorRef[],
): Promise<(actor: ActorRef) => AuditActorName> {
  const ids = (type: string) => [
    ...new Set(actors.filter((a) => a.actorType === type && a.actorId).map((a) => a.actorId!)),
  ];
  const keys = await prisma.apiKey.findMany({
    where: { id: { in: ids("apiKey") }, referenceId: tenantId },
    select: { id: true, name: true, createdByUserId: true },
  });
  const creators = new Map(keys.map((k) => [k.id, k.createdByUserId]));
  const userIds = [
    ...new Set([...ids("user"), ...[...creators.values()].filter((id): id is string => id !== null)]),
  ];
  const users = await prisma.user.findMany({
    where: { id: { in: userIds }, members: { some: { organizationId: tenantId } } },
    select: { id: true, name: true, email: true },
  });
  const byId = new Map(users.map((u) => [u.id, u]));
  const keyById = new Map(keys.map((k) => [k.id, k]));
  return (actor) => {
    const { actorType: type, actorId: id } = actor;
    if (type === "user") {
      return {
        type,
        id,
        name: person(id ? byId.get(id) : undefined) ?? `former member ${id ?? "(unknown)"}`,
      };
    }
    if (type === "apiKey") {
      const key = id ? keyById.get(id) : undefined;
      if (!key) return { type, id, name: `deleted API key ${id ?? "(unknown)"}` };
      const creatorId = creators.get(key.id) ?? null;
      const creator = creatorId
        ? (person(byId.get(creatorId)) ?? `former member ${creatorId}`)
        : "an unrecorded member";
      return { type, id, name: `API key "${key.name ?? key.id}" (created by ${creator})` };
    }
    return { type, id, name: id ? `${type} (${id})` : type };
  };
}
