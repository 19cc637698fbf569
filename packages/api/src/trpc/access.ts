import { resolveIdentity } from "../auth/request-identity";
import { hasScope, type Scope } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import { toAppError, toTrpcError } from "../errors/problem";
import { enforceRequestRate } from "../services/rate-limit.service";
import { EXPECTED_TENANT_HEADER } from "../services/tenant-slug";
import { baseProcedure, middleware } from "./trpc";

// Services throw AppError (and the data plane DataPlaneError); tRPC gets the matching code here,
// once, so status codes are right for tRPC and REST callers alike.
const translateErrors = middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const app = toAppError(result.error.cause);
    if (app) throw toTrpcError(app);
  }
  return result;
});

export const publicProcedure = baseProcedure.use(translateErrors);

/**
 * The single place where authentication, tenancy and per-tenant request rates are checked: the
 * caller's identity ({ tenantId, actor, role, scopes }) is built here from an API key or a session,
 * and services scope every query by `identity.tenantId`.
 */
export const authenticatedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const identity = await resolveIdentity(
    { auth: ctx.deps.auth, prisma: ctx.deps.prisma, now: () => new Date(ctx.deps.clock.now()) },
    ctx.headers,
  );
  const expected = ctx.headers.get(EXPECTED_TENANT_HEADER);
  if (expected !== null && expected !== identity.tenantId) {
    throw new AppError(
      "TENANT_CHANGED",
      "This page belongs to another organization than the one now active in your session (it was switched in another tab); nothing was changed. Reload to continue in the active one.",
      { details: { expectedTenantId: expected, activeTenantId: identity.tenantId } },
    );
  }
  await enforceRequestRate(ctx.deps, identity.tenantId);
  return next({ ctx: { ...ctx, identity } });
});

/** Every tenant-facing procedure is built from this with the one scope it needs. */
export function protectedProcedure(scope: Scope) {
  return authenticatedProcedure.use(({ ctx, next }) => {
    if (!hasScope(ctx.identity.scopes, scope)) {
      const who = ctx.identity.role ? `The ${ctx.identity.role} role` : "This API key";
      throw new AppError("INSUFFICIENT_SCOPE", `${who} lacks the ${scope} scope this operation needs.`, {
        details: { requiredScope: scope },
      });
    }
    return next();
  });
}
