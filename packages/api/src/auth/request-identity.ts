import type { ApiKey, PrismaClient } from "@lastword/db";
import type { AuditActor } from "@lastword/erasure/audit-chain";
import type { Clock } from "@lastword/logstore";
import { cachePerOwner } from "../cache/lookup-cache";
import { AppError } from "../errors/app-error";
import { isDatabaseUnreachable } from "../errors/database-unavailable";
import { effectiveScopes, type KeyLimits } from "./act-authorization";
import type { Auth } from "./auth";
import { hashApiKey, LAST_USED_RESOLUTION_MS } from "./key-auth";
import { type KeyRule, toKeyRule } from "./resource-rules";
import { isRole, permissionsToScopes, type Role, type Scope, scopesOfRole } from "./scopes";

/** Who is calling, for which tenant, with what rights. Built once per request, here only. */
export interface Identity {
  tenantId: string;
  actor: AuditActor & { type: "user" | "apiKey"; id: string };
  /** The member's role for console sessions; null for API keys. */
  role: Role | null;
  /** What the caller may do now: a role's scopes, or a key's scopes within its creator's current role. */
  scopes: Scope[];
  /** The user behind the call: the session's user, or the key's creator. */
  userId: string | null;
  /** An API key's own scopes, its creator's role and its resource rules (absent for sessions). */
  key?: KeyLimits;
}

function bearerToken(headers: Headers): string | null {
  const header = headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError("UNAUTHENTICATED", "The Authorization header must be `Bearer <api key>`.");
  return match[1]!;
}

/**
 * How long a looked-up key row is reused. A revoked or deleted key is refused within this; expiry
 * is checked against the clock on every request.
 */
export const API_KEY_CACHE_MS = 500;

/** A key row with what limits it now: its rules and its creator's current role in its tenant. */
interface KeyRecord {
  row: ApiKey;
  rules: KeyRule[];
  creatorRole: Role | null;
}
const apiKeyRows = cachePerOwner<KeyRecord>({ ttlMs: API_KEY_CACHE_MS });

/**
 * A revocation, a creator's role change or removal, or a rule change in this process takes effect
 * at once (other processes: within API_KEY_CACHE_MS).
 */
export function forgetCachedApiKeys(prisma: PrismaClient): void {
  apiKeyRows.existing(prisma)?.clear();
}

export { hashApiKey };

async function identityFromApiKey(prisma: PrismaClient, clock: Clock, secret: string): Promise<Identity> {
  const now = new Date(clock.now());
  const hashed = hashApiKey(secret);
  const record = await apiKeyRows.of(prisma, clock).get(hashed, () => loadKeyRecord(prisma, hashed));
  const key = record?.row;
  if (!record || !key || key.enabled === false || (key.expiresAt !== null && key.expiresAt <= now)) {
    throw new AppError("UNAUTHENTICATED", "The API key is invalid, expired or revoked.");
  }
  if (!key.lastRequest || now.getTime() - key.lastRequest.getTime() > LAST_USED_RESOLUTION_MS) {
    // Marked on the cached row first, so requests sharing it do not each write.
    key.lastRequest = now;
    // Bookkeeping, not a check: while Postgres is unreachable the key (served from the cache) still works.
    await prisma.apiKey
      .update({ where: { id: key.id }, data: { lastRequest: now } })
      .catch((error: unknown) => {
        if (!isDatabaseUnreachable(error)) throw error;
      });
  }
  const permissions: unknown = key.permissions ? JSON.parse(key.permissions) : null;
  const keyScopes = permissionsToScopes(permissions);
  return {
    tenantId: key.referenceId,
    actor: { type: "apiKey", id: key.id },
    role: null,
    scopes: effectiveScopes(keyScopes, record.creatorRole),
    userId: key.createdByUserId,
    key: { scopes: keyScopes, creatorRole: record.creatorRole, rules: record.rules },
  };
}

async function loadKeyRecord(prisma: PrismaClient, hashed: string): Promise<KeyRecord | null> {
  const row = await prisma.apiKey.findFirst({ where: { key: hashed }, include: { rules: true } });
  if (!row) return null;
  const { rules, ...key } = row;
  const member = key.createdByUserId
    ? await prisma.member.findFirst({
        where: { organizationId: key.referenceId, userId: key.createdByUserId },
        select: { role: true },
      })
    : null;
  return {
    row: key,
    rules: rules.map(toKeyRule),
    creatorRole: member && isRole(member.role) ? member.role : null,
  };
}

async function identityFromSession(auth: Auth, prisma: PrismaClient, headers: Headers): Promise<Identity> {
  const session = await auth.api.getSession({ headers });
  if (!session) throw new AppError("UNAUTHENTICATED", "Sign in, or send `Authorization: Bearer <api key>`.");
  const userId = session.user.id;
  const activeId = session.session.activeOrganizationId ?? null;
  const member =
    (activeId ? await prisma.member.findFirst({ where: { userId, organizationId: activeId } }) : null) ??
    (await prisma.member.findFirst({ where: { userId }, orderBy: { createdAt: "asc" } }));
  if (!member || !isRole(member.role)) {
    throw new AppError("NO_TENANT", "This account is not a member of any tenant.");
  }
  return {
    tenantId: member.organizationId,
    actor: { type: "user", id: userId },
    role: member.role,
    scopes: scopesOfRole(member.role),
    userId,
  };
}

/** A person signed in to the console, before any tenant is chosen (accepting an invitation). */
export interface SessionUser {
  userId: string;
  email: string;
  emailVerified: boolean;
  sessionId: string;
}

/** Only a session cookie: API keys act for a tenant, never for the person an invitation names. */
export async function resolveSessionUser(auth: Auth, headers: Headers): Promise<SessionUser> {
  if (headers.get("authorization") !== null) {
    throw new AppError(
      "FORBIDDEN",
      "Invitations are answered by a person signed in to the console, not an API key.",
    );
  }
  const session = await auth.api.getSession({ headers });
  if (!session) throw new AppError("UNAUTHENTICATED", "Sign in to answer the invitation.");
  return {
    userId: session.user.id,
    email: session.user.email,
    emailVerified: session.user.emailVerified,
    sessionId: session.session.id,
  };
}

/** The identity of an API key's secret, however it was presented (the schema registry's Basic auth). */
export function resolveApiKeySecret(
  deps: { prisma: PrismaClient; clock: Clock },
  secret: string,
): Promise<Identity> {
  return identityFromApiKey(deps.prisma, deps.clock, secret);
}

/** An API key in `Authorization: Bearer` wins over a session cookie. */
export async function resolveIdentity(
  deps: { auth: Auth; prisma: PrismaClient; clock: Clock },
  headers: Headers,
): Promise<Identity> {
  const token = bearerToken(headers);
  if (token !== null) return identityFromApiKey(deps.prisma, deps.clock, token);
  return identityFromSession(deps.auth, deps.prisma, headers);
}
