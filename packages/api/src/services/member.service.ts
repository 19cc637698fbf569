import type { PrismaClient } from "@lastword/db";
import { assertCanGrant } from "../auth/grant-rule";
import { forgetCachedApiKeys, type Identity } from "../auth/request-identity";
import { hasScope, isRole } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";
import { revokeKeysOfCreator } from "./api-key.service";
import { auditAs } from "./audit-as";
import type { AssignableRole } from "./invitation.service";

export interface MemberDeps {
  prisma: PrismaClient;
  clock: Clock;
}

/**
 * Members and pending invitations. An invitation's id is listed only to those who manage
 * invitations (`members:write`); the link's token is never listed to anyone (only its hash is kept).
 */
export async function listMembers(deps: MemberDeps, identity: Identity) {
  const manages = hasScope(identity.scopes, "members:write");
  const [members, invitations] = await Promise.all([
    deps.prisma.member.findMany({
      where: { organizationId: identity.tenantId },
      include: { user: { select: { email: true, name: true } } },
      orderBy: { createdAt: "asc" },
    }),
    deps.prisma.invitation.findMany({
      where: {
        organizationId: identity.tenantId,
        status: "pending",
        expiresAt: { gt: new Date(deps.clock.now()) },
      },
      orderBy: { createdAt: "asc" },
    }),
  ]);
  return {
    members: members.map((m) => ({
      id: m.id,
      userId: m.userId,
      email: m.user.email,
      name: m.user.name,
      role: m.role,
      createdAt: m.createdAt.toISOString(),
    })),
    invitations: invitations.map((i) => ({
      id: manages ? i.id : null,
      email: i.email,
      role: i.role ?? "viewer",
      expiresAt: i.expiresAt.toISOString(),
    })),
  };
}

/**
 * The member, if the caller may change them: owners are never changed here, and nobody changes a
 * member whose role they could not grant (a key with only members:write cannot demote an admin).
 */
async function findMember(prisma: PrismaClient, identity: Identity, memberId: string, action: string) {
  const member = await prisma.member.findFirst({
    where: { id: memberId, organizationId: identity.tenantId },
  });
  if (!member) throw new AppError("MEMBER_NOT_FOUND", `Member "${memberId}" does not exist.`);
  if (member.role === "owner") {
    throw new AppError(
      "LAST_OWNER",
      "An owner's membership is not changed here; ownership stays with the tenant's owner.",
    );
  }
  // An unknown stored role is treated as the highest grantable one, so it is never easier to change.
  assertCanGrant(identity, { role: isRole(member.role) ? member.role : "admin" }, action);
  return member;
}

export async function changeMemberRole(
  deps: MemberDeps,
  identity: Identity,
  input: { memberId: string; role: AssignableRole },
) {
  const member = await findMember(deps.prisma, identity, input.memberId, "change the role of a member with");
  assertCanGrant(identity, { role: input.role }, "give a member");
  const now = new Date(deps.clock.now());
  await deps.prisma.$transaction(async (tx) => {
    await tx.member.update({ where: { id: member.id }, data: { role: input.role } });
    await auditAs(tx, identity, {
      action: "member.role.changed",
      target: { type: "member", id: member.id },
      data: { userId: member.userId, before: member.role, after: input.role },
      now,
    });
  });
  // Their keys act with at most the new role: at once here, within the caches' bounds elsewhere.
  forgetCachedApiKeys(deps.prisma);
  return { id: member.id, role: input.role };
}

/**
 * Removes the member and revokes every key they made here (the Kafka listeners close those keys'
 * connections on their next sweep, as for any revocation).
 */
export async function removeMember(deps: MemberDeps, identity: Identity, memberId: string) {
  const member = await findMember(deps.prisma, identity, memberId, "remove a member with");
  const now = new Date(deps.clock.now());
  const revokedKeys = await deps.prisma.$transaction(async (tx) => {
    await tx.member.delete({ where: { id: member.id } });
    const revoked = await revokeKeysOfCreator(tx, identity, member.userId, "member.removed", now);
    await auditAs(tx, identity, {
      action: "member.removed",
      target: { type: "member", id: member.id },
      data: { userId: member.userId, role: member.role, revokedKeys: revoked },
      now,
    });
    return revoked;
  });
  forgetCachedApiKeys(deps.prisma);
  return { id: member.id, removed: true as const, revokedKeys };
}
