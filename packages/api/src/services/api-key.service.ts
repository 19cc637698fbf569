import type { ApiKey as ApiKeyRow, Prisma, PrismaClient } from "@lastword/db";
import { appendAuditEvent } from "@lastword/db";
import { deriveScramCredential, SCRAM_MECHANISMS } from "@lastword/kafka-auth";
import type { Auth } from "../auth/auth";
import { assertCanGrant } from "../auth/grant-rule";
import { forgetCachedApiKeys, type Identity } from "../auth/request-identity";
import { describeRule, type KeyRule, rulesWithin, toKeyRule } from "../auth/resource-rules";
import {
  DATA_SCOPES,
  DEFAULT_API_KEY_SCOPES,
  expandScopes,
  permissionsToScopes,
  type Scope,
  scopesToPermissions,
} from "../auth/scopes";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";
import { auditAs } from "./audit-as";
import { beforeCursor, encodeCursor } from "./cursor";

export interface ApiKeyDeps {
  prisma: PrismaClient;
  auth: Auth;
  clock: Clock;
}

export interface CreatedApiKey {
  id: string;
  /** The secret; shown once, never stored (only its SHA-256 is). */
  key: string;
  /** The first characters of the key, kept to tell keys apart. */
  prefix: string;
  name: string;
  scopes: Scope[];
  rules: KeyRule[];
  expiresAt: string | null;
}

export interface ApiKeySummary {
  id: string;
  name: string | null;
  prefix: string | null;
  scopes: Scope[];
  rules: KeyRule[];
  /** The member who made the key (it acts with at most their current role); null when unknown. */
  createdBy: { userId: string; email: string | null; name: string | null; role: string | null } | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revoked: boolean;
}

/**
 * Issues an organization-owned key through better-auth (which hashes it and checks that the user
 * is a member allowed to create keys), then records it in the audit trail. Trusted callers only
 * (operator tooling): without scopes it gets DATA_SCOPES; requests go through createApiKeyFor.
 */
export async function issueApiKey(
  deps: ApiKeyDeps,
  input: {
    organizationId: string;
    userId: string;
    name: string;
    scopes?: readonly Scope[] | undefined;
    rules?: readonly KeyRule[] | undefined;
    expiresInDays?: number | undefined;
    actor?: Identity["actor"];
  },
): Promise<CreatedApiKey> {
  const scopes = [...new Set(input.scopes ?? DATA_SCOPES)];
  const rules = [...(input.rules ?? [])];
  const created = await deps.auth.api.createApiKey({
    body: {
      organizationId: input.organizationId,
      userId: input.userId,
      name: input.name,
      permissions: scopesToPermissions(scopes),
      metadata: { createdByUserId: input.userId },
      expiresIn: input.expiresInDays ? input.expiresInDays * 86_400 : null,
    },
  });
  // The secret exists only now: derive what a Kafka SCRAM login checks, for both mechanisms.
  const scram = await Promise.all(SCRAM_MECHANISMS.map((m) => deriveScramCredential(m, created.key)));
  await deps.prisma.$transaction(async (tx) => {
    // The creator as a column (better-auth keeps it only in its metadata text): every request and
    // Kafka login reads the creator's current role through it.
    await tx.apiKey.update({ where: { id: created.id }, data: { createdByUserId: input.userId } });
    if (rules.length > 0) {
      await tx.apiKeyRule.createMany({ data: rules.map((r) => ({ apiKeyId: created.id, ...r })) });
    }
    await tx.kafkaScramCredential.createMany({
      data: scram.map((c) => ({
        apiKeyId: created.id,
        mechanism: c.mechanism,
        salt: new Uint8Array(c.salt),
        iterations: c.iterations,
        storedKey: new Uint8Array(c.storedKey),
        serverKey: new Uint8Array(c.serverKey),
      })),
    });
    await appendAuditEvent(tx, {
      organizationId: input.organizationId,
      actor: input.actor ?? { type: "user", id: input.userId },
      action: "apiKey.created",
      target: { type: "apiKey", id: created.id },
      data: {
        name: input.name,
        scopes,
        prefix: created.start,
        ...(rules.length > 0 ? { rules: rules.map(describeRule) } : {}),
      },
      now: new Date(deps.clock.now()),
    });
  });
  return {
    id: created.id,
    key: created.key,
    prefix: created.start ?? created.key.slice(0, 10),
    name: input.name,
    scopes,
    rules,
    expiresAt: created.expiresAt ? new Date(created.expiresAt).toISOString() : null,
  };
}

async function keyCreatorFor(prisma: PrismaClient, identity: Identity): Promise<string> {
  if (identity.userId) return identity.userId;
  const owner = await prisma.member.findFirst({
    where: { organizationId: identity.tenantId, role: "owner" },
    orderBy: { createdAt: "asc" },
  });
  if (!owner) throw new AppError("NO_TENANT", "This tenant has no owner to issue keys for.");
  return owner.userId;
}

/**
 * A caller can hand out only rights it holds itself: scopes within its own (a key's effective
 * ones), and, for a key limited by rules, rules within its own (it passes its own on by default).
 */
export async function createApiKeyFor(
  deps: ApiKeyDeps,
  identity: Identity,
  input: {
    name: string;
    scopes?: Scope[] | undefined;
    rules?: KeyRule[] | undefined;
    expiresInDays?: number | undefined;
  },
): Promise<CreatedApiKey> {
  const held = expandScopes(identity.scopes);
  const wanted = input.scopes ?? DEFAULT_API_KEY_SCOPES.filter((s) => held.includes(s));
  if (wanted.length === 0) {
    throw new AppError(
      "INVALID_INPUT",
      `Name the key's scopes: the caller holds none of the default ones (${DEFAULT_API_KEY_SCOPES.join(", ")}).`,
    );
  }
  assertCanGrant(identity, { scopes: wanted }, "create a key with");
  const rules = rulesWithin(identity.key?.rules ?? [], input.rules ?? []);
  if (rules === null) {
    throw new AppError(
      "INSUFFICIENT_SCOPE",
      `This API key cannot create a key with rules beyond its own (${identity.key!.rules.map(describeRule).join(", ")}).`,
      { details: { requiredScope: "keys:write" } },
    );
  }
  const userId = await keyCreatorFor(deps.prisma, identity);
  return issueApiKey(deps, {
    organizationId: identity.tenantId,
    userId,
    ...input,
    scopes: wanted,
    rules,
    actor: identity.actor,
  });
}

export async function listApiKeys(
  deps: ApiKeyDeps,
  identity: Identity,
  input: { limit: number; cursor?: string | undefined },
): Promise<{ apiKeys: ApiKeySummary[]; nextCursor: string | null }> {
  const rows = await deps.prisma.apiKey.findMany({
    where: { referenceId: identity.tenantId, ...beforeCursor("apiKeys", input.cursor) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    include: { rules: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
  });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > input.limit && last
      ? encodeCursor("apiKeys", [last.createdAt.toISOString(), last.id])
      : null;
  const creatorIds = [...new Set(page.flatMap((k) => (k.createdByUserId ? [k.createdByUserId] : [])))];
  const [users, members] = await Promise.all([
    deps.prisma.user.findMany({
      where: { id: { in: creatorIds } },
      select: { id: true, email: true, name: true },
    }),
    deps.prisma.member.findMany({
      where: { organizationId: identity.tenantId, userId: { in: creatorIds } },
      select: { userId: true, role: true },
    }),
  ]);
  const creators: Creators = {
    users: new Map(users.map((u) => [u.id, u])),
    roles: new Map(members.map((m) => [m.userId, m.role])),
  };
  return { apiKeys: page.map((row) => summarise(row, creators)), nextCursor };
}

interface Creators {
  users: Map<string, { email: string; name: string }>;
  /** Creators still members, by user id: their role now. */
  roles: Map<string, string>;
}

function summarise(
  row: ApiKeyRow & { rules: Parameters<typeof toKeyRule>[0][] },
  creators: Creators,
): ApiKeySummary {
  const creator = row.createdByUserId;
  const user = creator ? creators.users.get(creator) : undefined;
  return {
    id: row.id,
    name: row.name,
    prefix: row.start,
    scopes: permissionsToScopes(row.permissions ? JSON.parse(row.permissions) : null),
    rules: row.rules.map(toKeyRule),
    createdBy: creator
      ? {
          userId: creator,
          email: user?.email ?? null,
          name: user?.name ?? null,
          role: creators.roles.get(creator) ?? null,
        }
      : null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastRequest?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revoked: row.enabled === false,
  };
}

/**
 * Revoked keys stay listed (disabled) so the audit trail's references keep resolving. Revoking is
 * bound by the grant rule too: only someone holding at least a key's scopes may switch it off, so a
 * developer's keys:write cannot disable an admin's key.
 */
export async function revokeApiKey(
  deps: ApiKeyDeps,
  identity: Identity,
  id: string,
): Promise<{ id: string; revoked: true }> {
  const now = new Date(deps.clock.now());
  await deps.prisma.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id, referenceId: identity.tenantId } });
    if (!key) throw new AppError("API_KEY_NOT_FOUND", `API key "${id}" does not exist.`);
    const scopes = permissionsToScopes(key.permissions ? JSON.parse(key.permissions) : null);
    assertCanGrant(identity, { scopes }, "revoke a key holding");
    await tx.apiKey.update({ where: { id }, data: { enabled: false, updatedAt: now } });
    await auditAs(tx, identity, {
      action: "apiKey.revoked",
      target: { type: "apiKey", id },
      data: { scopes, prefix: key.start },
      now,
    });
  });
  forgetCachedApiKeys(deps.prisma);
  return { id, revoked: true };
}

/**
 * Revokes every live key `userId` made in the caller's tenant, inside the transaction that removes
 * them (a key acts for its creator, who no longer belongs here); each audited as `apiKey.revoked`
 * with the reason. The caller forgets cached keys once the transaction commits.
 */
export async function revokeKeysOfCreator(
  tx: Prisma.TransactionClient,
  identity: Identity,
  userId: string,
  reason: string,
  now: Date,
): Promise<string[]> {
  const keys = await tx.apiKey.findMany({
    where: { referenceId: identity.tenantId, createdByUserId: userId, enabled: { not: false } },
    select: { id: true, start: true, permissions: true },
  });
  if (keys.length === 0) return [];
  await tx.apiKey.updateMany({
    where: { id: { in: keys.map((k) => k.id) } },
    data: { enabled: false, updatedAt: now },
  });
  for (const key of keys) {
    await auditAs(tx, identity, {
      action: "apiKey.revoked",
      target: { type: "apiKey", id: key.id },
      data: {
        scopes: permissionsToScopes(key.permissions ? JSON.parse(key.permissions) : null),
        prefix: key.start,
        reason,
      },
      now,
    });
  }
  return keys.map((k) => k.id);
}
