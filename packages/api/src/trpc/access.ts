import { type ActResource, actRefusal } from "../auth/act-authorization";
import { type Identity, resolveIdentity, resolveSessionUser } from "../auth/request-identity";
import type { Scope } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import { toAppError, toTrpcError } from "../errors/problem";
import { isSameOriginRequest } from "../http/request-origin";
import {
  deferRequestCount,
  enforceRequestRate,
  settleDeferredRequestCount,
} from "../services/rate-limit.service";
import { EXPECTED_TENANT_HEADER } from "../services/tenant-slug";
import type { RequestContext } from "./context";
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
 * The caller's identity from an API key or a session, refusing a page of another tenant, and a
 * session's change (any mutation: tRPC's, and REST's POST, PUT, PATCH and DELETE, which map to
 * mutations) sent from a page of another site (cross-site request forgery). API keys travel in a
 * header no other site can make a browser send, so their requests need no origin.
 */
async function authenticate(ctx: RequestContext, type: string): Promise<Identity> {
  const identity = await resolveIdentity(ctx.deps, ctx.headers);
  if (
    type === "mutation" &&
    identity.actor.type === "user" &&
    !isSameOriginRequest(ctx.headers, ctx.deps.publicUrl)
  ) {
    throw new AppError(
      "FORBIDDEN",
      "This change was sent from a page outside the console (its Origin is not the console's); nothing was changed. Programs authenticate with an API key instead of a session.",
    );
  }
  const expected = ctx.headers.get(EXPECTED_TENANT_HEADER);
  if (expected !== null && expected !== identity.tenantId) {
    throw new AppError(
      "TENANT_CHANGED",
      "This page belongs to another organization than the one now active in your session (it was switched in another tab); nothing was changed. Reload to continue in the active one.",
      { details: { expectedTenantId: expected, activeTenantId: identity.tenantId } },
    );
  }
  return identity;
}

/**
 * The single place where authentication, tenancy and per-tenant request rates are checked: the
 * caller's identity ({ tenantId, actor, role, scopes }) is built here from an API key or a session,
 * and services scope every query by `identity.tenantId`.
 */
export const authenticatedProcedure = publicProcedure.use(async ({ ctx, type, next }) => {
  const identity = await authenticate(ctx, type);
  await enforceRequestRate(ctx.deps, identity.tenantId);
  return next({ ctx: { ...ctx, identity } });
});

/**
 * The same checks for a procedure whose service counts the request in its own Redis MULTI (produce:
 * admission counts the request, the produce bytes and reads the stored total in one round trip,
 * services/usage.service.ts), so the request is not counted in a round trip of its own first. The
 * service checks the request rate on that answer before it writes anything. Whatever the procedure
 * did not count (it failed first, or answered a replayed Idempotency-Key) is counted afterwards,
 * and a request over the rate is RATE_LIMITED whatever the procedure answered.
 */
const selfCountingProcedure = publicProcedure.use(async ({ ctx, type, next }) => {
  // A copy: the deferred count is found by this object, which must be this request's alone.
  const identity = { ...(await authenticate(ctx, type)) };
  const deferred = deferRequestCount(identity);
  const result = await next({ ctx: { ...ctx, identity } });
  await settleDeferredRequestCount(ctx.deps, deferred, result.ok);
  return result;
});

/**
 * The topics and groups a REST/tRPC act names, by the inputs' one naming convention: `topic` (or a
 * new topic's `name`), `group`, and the topics of `offsets` (a commit). Read from the raw input:
 * the schemas only validate these names, never rewrite them. A group act needs to read the topics
 * whose offsets it sets (Kafka's OffsetCommit: Group READ and Topic READ), to see those it lists.
 */
function namedResources(scope: Scope, raw: unknown): ActResource[] {
  if (typeof raw !== "object" || raw === null) return [];
  const input = raw as Record<string, unknown>;
  const resources: ActResource[] = [];
  const groupAct = scope.startsWith("groups:");
  const operation = scope === "groups:write" ? "read" : "describe";
  const topic = (name: unknown) => {
    if (typeof name === "string") resources.push({ type: "topic", name, ...(groupAct ? { operation } : {}) });
  };
  topic(input.topic ?? (scope === "topics:write" ? input.name : undefined));
  if (Array.isArray(input.offsets)) for (const o of input.offsets) topic((o as { topic?: unknown })?.topic);
  if (typeof input.group === "string") resources.push({ type: "group", name: input.group });
  return resources;
}

/**
 * Every tenant-facing procedure is built from this with the one scope it needs; an API key's
 * resource rules are checked here too, on the topics and groups the input names
 * (auth/act-authorization.ts decides, for the Kafka listener as well).
 * `countsRequestInAdmission`: the procedure's service takes the request's count into its produce
 * admission (services/record.service.ts `produceBatch`), as above.
 */
export function protectedProcedure(scope: Scope, options: { countsRequestInAdmission?: boolean } = {}) {
  const base = options.countsRequestInAdmission ? selfCountingProcedure : authenticatedProcedure;
  return base.use(async ({ ctx, next, getRawInput }) => {
    const resources = ctx.identity.key ? namedResources(scope, await getRawInput()) : [];
    const refused = actRefusal(ctx.identity, { scope, resources });
    if (refused) throw new AppError("INSUFFICIENT_SCOPE", refused.message, { details: refused.details });
    return next();
  });
}

/**
 * For what a person does as themselves rather than inside a tenant (answering an invitation to
 * another one): a console session only, no scope; the service checks who the person is.
 */
export const sessionProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const user = await resolveSessionUser(ctx.deps.auth, ctx.headers);
  return next({ ctx: { ...ctx, user } });
});
