import type { Auth } from "../auth/auth";
import { AppError } from "../errors/app-error";
import type { ApiDeps } from "./api-deps";
import { createTenantForUser, findOwnedTenant } from "./tenant.service";

export interface ProvisionedTenant {
  userId: string;
  organizationId: string;
  organizationSlug: string;
}

async function signUp(auth: Auth, input: { name: string; email: string; password: string }): Promise<string> {
  const result = await auth.api.signUpEmail({
    body: { name: input.name, email: input.email, password: input.password },
  });
  return result.user.id;
}

async function findOrSignUp(
  deps: Pick<ApiDeps, "auth" | "prisma">,
  input: { name: string; email: string; password: string },
): Promise<string> {
  const existing = await deps.prisma.user.findUnique({ where: { email: input.email } });
  if (existing) return existing.id;
  try {
    return await signUp(deps.auth, input);
  } catch (error) {
    // Two callers raced to create the same user: the loser uses the winner's.
    const winner = await deps.prisma.user.findUnique({ where: { email: input.email } });
    if (winner) return winner.id;
    throw error;
  }
}

/**
 * A user with this email and a tenant they own: created when missing, found when present, so
 * `npm start` and the operator CLI can run it again safely.
 */
export async function provisionTenant(
  deps: Pick<ApiDeps, "auth" | "prisma" | "clock">,
  input: { name: string; email: string; password: string },
): Promise<ProvisionedTenant> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email))
    throw new AppError("INVALID_INPUT", `"${input.email}" is not an email address.`);
  // Serialise provisioning per email, so racing callers neither fail nor make two tenants; the
  // transaction only holds the lock while sign-up works on other connections.
  return deps.prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`provision:${email}`}, 0))`;
      return provisionLocked(deps, { ...input, email });
    },
    { timeout: PROVISION_TIMEOUT_MS, maxWait: PROVISION_TIMEOUT_MS },
  );
}

/** How long one provisioning may hold its per-email lock. */
const PROVISION_TIMEOUT_MS = 30_000;

async function provisionLocked(
  deps: Pick<ApiDeps, "auth" | "prisma" | "clock">,
  input: { name: string; email: string; password: string },
): Promise<ProvisionedTenant> {
  const userId = await findOrSignUp(deps, input);
  // The operator names this address (the demo seed, the CLI), so it counts as verified: its user
  // can accept invitations sent to it without the link's token, as a verified sign-up can.
  await deps.prisma.user.updateMany({
    where: { id: userId, emailVerified: false },
    data: { emailVerified: true },
  });
  // Sign-up's hook made the tenant; a user left without one (hook failed midway) gets it now.
  const tenant =
    (await findOwnedTenant(deps.prisma, userId)) ??
    (await createTenantForUser(deps.prisma, { userId, name: input.name, now: new Date(deps.clock.now()) }));
  return { userId, ...tenant };
}
