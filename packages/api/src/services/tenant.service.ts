import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@lastword/db";
import { appendAuditEvent } from "@lastword/db";
import type { Identity } from "../auth/request-identity";
import type { Clock } from "./api-deps";
import { auditAs } from "./audit-as";
import { slugFor } from "./tenant-slug";

export interface Tenant {
  organizationId: string;
  organizationSlug: string;
}

/** The tenant a user owns, if any (the oldest one when there are several). */
export async function findOwnedTenant(prisma: PrismaClient, userId: string): Promise<Tenant | null> {
  const member = await prisma.member.findFirst({
    where: { userId, role: "owner" },
    orderBy: { createdAt: "asc" },
    include: { organization: true },
  });
  return member
    ? { organizationId: member.organizationId, organizationSlug: member.organization.slug }
    : null;
}

/**
 * Creates an organization (= tenant) with the user as its owner, in one transaction with its
 * first audit event. Called when a user signs up, so every account starts with a tenant.
 */
export async function createTenantForUser(
  prisma: PrismaClient,
  input: { userId: string; name: string; now: Date },
): Promise<Tenant> {
  const organizationId = randomUUID();
  const slug = slugFor(input.name);
  await prisma.$transaction(async (tx) => {
    await tx.organization.create({
      data: { id: organizationId, name: input.name, slug, createdAt: input.now },
    });
    await tx.member.create({
      data: {
        id: randomUUID(),
        organizationId,
        userId: input.userId,
        role: "owner",
        createdAt: input.now,
      },
    });
    await appendAuditEvent(tx, {
      organizationId,
      actor: { type: "user", id: input.userId },
      action: "tenant.created",
      target: { type: "organization", id: organizationId },
      data: { name: input.name, slug },
      now: input.now,
    });
  });
  return { organizationId, organizationSlug: slug };
}

/**
 * Renames the caller's tenant (its slug, which API paths and Kafka principals may carry, stays), in
 * one transaction with a `tenant.renamed` audit event naming both names. Renaming to the current
 * name changes and records nothing.
 */
export async function renameTenant(
  deps: { prisma: PrismaClient; clock: Clock },
  identity: Identity,
  input: { name: string },
): Promise<{ name: string; changed: boolean }> {
  return deps.prisma.$transaction(async (tx) => {
    const before = await tx.organization.findUniqueOrThrow({ where: { id: identity.tenantId } });
    if (before.name === input.name) return { name: before.name, changed: false };
    await tx.organization.update({ where: { id: identity.tenantId }, data: { name: input.name } });
    await auditAs(tx, identity, {
      action: "tenant.renamed",
      target: { type: "organization", id: identity.tenantId },
      data: { from: before.name, to: input.name },
      now: new Date(deps.clock.now()),
    });
    return { name: input.name, changed: true };
  });
}
