import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@lastword/db";
import { appendAuditEvent } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import type { Role } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import type { Clock } from "../trpc/context";

export interface MemberDeps {
  prisma: PrismaClient;
  clock: Clock;
}

/** How long an invitation can be accepted. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** Roles a member can be invited to or given; ownership is never handed out this way. */
export type AssignableRole = Exclude<Role, "owner">;

export async function listMembers(deps: MemberDeps, identity: Identity) {
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
      id: i.id,
      email: i.email,
      role: i.role ?? "viewer",
      expiresAt: i.expiresAt.toISOString(),
    })),
  };
}

/**
 * Records a pending invitation (better-auth's own table); the invitee accepts it signed in with
 * that email through better-auth's `organization/accept-invitation`, which adds the membership.
 */
export async function inviteMember(
  deps: MemberDeps,
  identity: Identity,
  input: { email: string; role: AssignableRole },
) {
  if (!identity.userId)
    throw new AppError("FORBIDDEN", "Invitations are sent by a person; sign in to the console.");
  const email = input.email.trim().toLowerCase();
  const now = new Date(deps.clock.now());
  const existing = await deps.prisma.member.findFirst({
    where: { organizationId: identity.tenantId, user: { email } },
  });
  if (existing) throw new AppError("INVALID_INPUT", `${email} is already a member.`);
  const invitation = await deps.prisma.$transaction(async (tx) => {
    const row = await tx.invitation.create({
      data: {
        id: randomUUID(),
        organizationId: identity.tenantId,
        email,
        role: input.role,
        status: "pending",
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        createdAt: now,
        inviterId: identity.userId!,
      },
    });
    await appendAuditEvent(tx, {
      organizationId: identity.tenantId,
      actor: identity.actor,
      action: "member.invited",
      target: { type: "invitation", id: row.id },
      data: { email, role: input.role },
      now,
    });
    return row;
  });
  return { id: invitation.id, email, role: input.role, expiresAt: invitation.expiresAt.toISOString() };
}

async function findMember(prisma: PrismaClient, tenantId: string, memberId: string) {
  const member = await prisma.member.findFirst({ where: { id: memberId, organizationId: tenantId } });
  if (!member) throw new AppError("MEMBER_NOT_FOUND", `Member "${memberId}" does not exist.`);
  if (member.role === "owner") {
    throw new AppError(
      "LAST_OWNER",
      "An owner's membership is not changed here; ownership stays with the tenant's owner.",
    );
  }
  return member;
}

export async function changeMemberRole(
  deps: MemberDeps,
  identity: Identity,
  input: { memberId: string; role: AssignableRole },
) {
  const member = await findMember(deps.prisma, identity.tenantId, input.memberId);
  const now = new Date(deps.clock.now());
  await deps.prisma.$transaction(async (tx) => {
    await tx.member.update({ where: { id: member.id }, data: { role: input.role } });
    await appendAuditEvent(tx, {
      organizationId: identity.tenantId,
      actor: identity.actor,
      action: "member.role.changed",
      target: { type: "member", id: member.id },
      data: { userId: member.userId, before: member.role, after: input.role },
      now,
    });
  });
  return { id: member.id, role: input.role };
}

export async function removeMember(deps: MemberDeps, identity: Identity, memberId: string) {
  const member = await findMember(deps.prisma, identity.tenantId, memberId);
  const now = new Date(deps.clock.now());
  await deps.prisma.$transaction(async (tx) => {
    await tx.member.delete({ where: { id: member.id } });
    await appendAuditEvent(tx, {
      organizationId: identity.tenantId,
      actor: identity.actor,
      action: "member.removed",
      target: { type: "member", id: member.id },
      data: { userId: member.userId, role: member.role },
      now,
    });
  });
  return { id: member.id, removed: true as const };
}
