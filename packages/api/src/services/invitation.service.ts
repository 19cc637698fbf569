import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { type AuditTx, appendAuditEvent, type PrismaClient } from "@lastword/db";
import { assertCanGrant, canGrant } from "../auth/grant-rule";
import type { Identity, SessionUser } from "../auth/request-identity";
import { isRole, type Role, scopesOfRole } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";
import { auditAs } from "./audit-as";

export interface InvitationDeps {
  prisma: PrismaClient;
  clock: Clock;
  /** The console's base URL, for the invitation link. */
  publicUrl: string;
}

/** How long an invitation can be accepted. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** Prefix of an invitation link's secret, so a leaked one is recognisable. */
export const INVITATION_TOKEN_PREFIX = "lwi_";

/** Roles a member can be invited to or given; ownership is never handed out this way. */
export type AssignableRole = Exclude<Role, "owner">;

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

function tokenMatches(token: string, storedHash: string | null): boolean {
  if (storedHash === null) return false;
  const given = Buffer.from(hashToken(token));
  const stored = Buffer.from(storedHash);
  return given.length === stored.length && timingSafeEqual(given, stored);
}

export function invitationLink(publicUrl: string, invitationId: string, token: string): string {
  const url = new URL(`/invitations/${encodeURIComponent(invitationId)}`, publicUrl);
  url.searchParams.set("token", token);
  return url.toString();
}

/**
 * Records a pending invitation (better-auth's table) with the hash of a secret token, and returns
 * the link carrying that token: shown once, like an API key's secret. One address has at most one
 * pending invitation (409 otherwise): a lost link is fixed by revoking it and inviting again, so
 * no second live link for the same person exists unnoticed.
 */
export async function inviteMember(
  deps: InvitationDeps,
  identity: Identity,
  input: { email: string; role: AssignableRole },
) {
  assertCanGrant(identity, { role: input.role }, "invite someone with");
  if (!identity.userId)
    throw new AppError("FORBIDDEN", "Invitations are sent by a person; sign in to the console.");
  const email = input.email.trim().toLowerCase();
  const now = new Date(deps.clock.now());
  const existing = await deps.prisma.member.findFirst({
    where: { organizationId: identity.tenantId, user: { email } },
  });
  if (existing) throw new AppError("INVALID_INPUT", `${email} is already a member.`);
  const token = `${INVITATION_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const invitation = await deps.prisma.$transaction(async (tx) => {
    // Serialises invitations of one address, so two racing invites cannot both find none pending.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`invitation:${identity.tenantId}:${email}`}, 0))`;
    // An expired one is no longer pending for anyone: it is closed here, not counted.
    await tx.invitation.updateMany({
      where: { organizationId: identity.tenantId, email, status: "pending", expiresAt: { lte: now } },
      data: { status: "canceled" },
    });
    const pending = await tx.invitation.findFirst({
      where: { organizationId: identity.tenantId, email, status: "pending" },
    });
    if (pending) {
      throw new AppError(
        "INVITATION_PENDING",
        `${email} already has a pending invitation (expires ${pending.expiresAt.toISOString()}); revoke it to send a new one.`,
        { details: { email, invitationId: pending.id } },
      );
    }
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
        tokenHash: hashToken(token),
      },
    });
    await auditAs(tx, identity, {
      action: "member.invited",
      target: { type: "invitation", id: row.id },
      data: { email, role: input.role },
      now,
    });
    return row;
  });
  return {
    id: invitation.id,
    email,
    role: input.role,
    expiresAt: invitation.expiresAt.toISOString(),
    link: invitationLink(deps.publicUrl, invitation.id, token),
  };
}

type InvitationRow = NonNullable<Awaited<ReturnType<PrismaClient["invitation"]["findUnique"]>>>;

const NOT_OPEN = "This invitation does not exist, has expired, or was already answered or withdrawn.";

/**
 * The person answering must be the one invited, and prove it: with the link's token (delivered
 * out of band by the inviter) or a verified address. An invitation id alone proves nothing: it
 * was readable to other members before, and an unverified sign-up can claim any address.
 */
function assertInvitee(row: InvitationRow, user: SessionUser, token: string | undefined): "token" | "email" {
  if (user.email.toLowerCase() !== row.email.toLowerCase()) {
    throw new AppError(
      "FORBIDDEN",
      `This invitation is for ${row.email}; you are signed in as ${user.email}. Sign in as ${row.email} to answer it.`,
    );
  }
  if (token !== undefined) {
    if (tokenMatches(token, row.tokenHash)) return "token";
    throw new AppError(
      "FORBIDDEN",
      "The invitation link's token does not match; open the link you were sent.",
    );
  }
  if (user.emailVerified) return "email";
  throw new AppError(
    "FORBIDDEN",
    `Open the invitation link you were sent, or verify ${user.email} first (we sent a link when you signed up).`,
  );
}

async function openInvitation(prisma: PrismaClient, invitationId: string, now: Date): Promise<InvitationRow> {
  const row = await prisma.invitation.findUnique({ where: { id: invitationId } });
  if (row?.status !== "pending" || row.expiresAt <= now) {
    throw new AppError("INVITATION_NOT_FOUND", NOT_OPEN);
  }
  return row;
}

/**
 * The role is granted as of now, not as of the invitation: an inviter since demoted or removed
 * can no longer hand it out, so neither can their old invitation.
 */
async function assertInviterStillGrants(prisma: PrismaClient, row: InvitationRow, role: Role): Promise<void> {
  const inviter = await prisma.member.findFirst({
    where: { organizationId: row.organizationId, userId: row.inviterId },
  });
  const inviterRole = inviter && isRole(inviter.role) ? inviter.role : null;
  if (!inviterRole || !canGrant({ role: inviterRole, scopes: scopesOfRole(inviterRole) }, { role })) {
    throw new AppError(
      "FORBIDDEN",
      `Whoever sent this invitation can no longer grant the ${role} role; ask an owner or admin for a new one.`,
    );
  }
}

/** Moves a pending invitation on, once: a racing answer that got there first makes this refuse. */
async function closeInvitation(tx: AuditTx, id: string, status: "accepted" | "rejected"): Promise<void> {
  const { count } = await tx.invitation.updateMany({ where: { id, status: "pending" }, data: { status } });
  if (count === 0) throw new AppError("INVITATION_NOT_FOUND", NOT_OPEN);
}

function invitedRole(row: InvitationRow): AssignableRole {
  const role = row.role ?? "viewer";
  if (!isRole(role) || role === "owner") throw new AppError("INVITATION_NOT_FOUND", NOT_OPEN);
  return role;
}

type AnswerDeps = Pick<InvitationDeps, "prisma" | "clock">;
/** An invitee's answer: the invitation, and the link's token when it came through the link. */
type InvitationAnswer = { invitationId: string; token?: string | undefined };

/** The open invitation `input` names, once `user` proved to be its invitee, and how (`proof`). */
async function invitationFor(deps: AnswerDeps, user: SessionUser, input: InvitationAnswer) {
  const now = new Date(deps.clock.now());
  const row = await openInvitation(deps.prisma, input.invitationId, now);
  return { now, row, proof: assertInvitee(row, user, input.token) };
}

/**
 * Joins the invited tenant with the invited role, makes it the session's active tenant, and
 * records `member.joined`. The status flips from pending only once, so two racing accepts make
 * one membership.
 */
export async function acceptInvitation(deps: AnswerDeps, user: SessionUser, input: InvitationAnswer) {
  const { now, row, proof } = await invitationFor(deps, user, input);
  const role = invitedRole(row);
  await assertInviterStillGrants(deps.prisma, row, role);
  const already = await deps.prisma.member.findFirst({
    where: { organizationId: row.organizationId, userId: user.userId },
  });
  if (already) throw new AppError("INVALID_INPUT", "You are already a member of this organization.");
  const member = await deps.prisma.$transaction(async (tx) => {
    await closeInvitation(tx, row.id, "accepted");
    const created = await tx.member.create({
      data: {
        id: randomUUID(),
        organizationId: row.organizationId,
        userId: user.userId,
        role,
        createdAt: now,
      },
    });
    await tx.session.update({
      where: { id: user.sessionId },
      data: { activeOrganizationId: row.organizationId },
    });
    await appendAuditEvent(tx, {
      organizationId: row.organizationId,
      actor: { type: "user", id: user.userId },
      action: "member.joined",
      target: { type: "member", id: created.id },
      data: { invitationId: row.id, email: user.email, role, proof },
      now,
    });
    return created;
  });
  return { memberId: member.id, organizationId: row.organizationId, role };
}

/** Declining needs the same proof as accepting: otherwise anyone could void someone's invitation. */
export async function declineInvitation(deps: AnswerDeps, user: SessionUser, input: InvitationAnswer) {
  const { now, row } = await invitationFor(deps, user, input);
  await deps.prisma.$transaction(async (tx) => {
    await closeInvitation(tx, row.id, "rejected");
    await appendAuditEvent(tx, {
      organizationId: row.organizationId,
      actor: { type: "user", id: user.userId },
      action: "member.invitation.declined",
      target: { type: "invitation", id: row.id },
      data: { email: user.email },
      now,
    });
  });
  return { invitationId: row.id, declined: true as const };
}

/**
 * Withdraws a pending invitation: its link stops working at once. Bound by the grant rule like
 * inviting, so nobody revokes an invitation to a role they could not have sent.
 */
export async function revokeInvitation(
  deps: Pick<InvitationDeps, "prisma" | "clock">,
  identity: Identity,
  invitationId: string,
) {
  const now = new Date(deps.clock.now());
  const row = await deps.prisma.invitation.findFirst({
    where: { id: invitationId, organizationId: identity.tenantId, status: "pending", expiresAt: { gt: now } },
  });
  if (!row) {
    throw new AppError(
      "INVITATION_NOT_FOUND",
      `Invitation "${invitationId}" is not pending: it does not exist, was answered, expired or was already revoked.`,
    );
  }
  const role = row.role && isRole(row.role) ? row.role : "admin";
  assertCanGrant(identity, { role }, "revoke an invitation to");
  await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.invitation.updateMany({
      where: { id: row.id, status: "pending" },
      data: { status: "canceled" },
    });
    if (count === 0) throw new AppError("INVITATION_NOT_FOUND", NOT_OPEN);
    await auditAs(tx, identity, {
      action: "member.invitation.revoked",
      target: { type: "invitation", id: row.id },
      data: { email: row.email, role },
      now,
    });
  });
  return { id: row.id, email: row.email, revoked: true as const };
}
