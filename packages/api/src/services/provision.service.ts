import type { Auth } from "../auth/auth";
import { AppError } from "../errors/app-error";
import type { ApiDeps } from "../trpc/context";
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
  const existing = await deps.prisma.user.findUnique({ where: { email } });
  const userId = existing?.id ?? (await signUp(deps.auth, { ...input, email }));
  // Sign-up's hook made the tenant; a user left without one (hook failed midway) gets it now.
  const tenant =
    (await findOwnedTenant(deps.prisma, userId)) ??
    (await createTenantForUser(deps.prisma, { userId, name: input.name, now: new Date(deps.clock.now()) }));
  return { userId, ...tenant };
}
