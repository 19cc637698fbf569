import type { ApiKey as ApiKeyRow, PrismaClient } from "@lastword/db";
import { appendAuditEvent } from "@lastword/db";
import { deriveScramCredential, SCRAM_MECHANISMS } from "@lastword/kafka-auth";
import type { Auth } from "../auth/auth";
import { assertCanGrant } from "../auth/grant-rule";
import { forgetCachedApiKeys, type Identity } from "../auth/request-identity";
import {
  DATA_SCOPES,
  DEFAULT_API_KEY_SCOPES,
  expandScopes,
  permissionsToScopes,
  type Scope,
  scopesToPermissions,
} from "../auth/scopes";
import { AppError } from "../errors/app-error";
import type { Clock } from "../trpc/context";
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
  expiresAt: string | null;
}

export interface ApiKeySummary {
  id: string;
  name: string | null;
  prefix: string | null;
  scopes: Scope[];
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
    expiresInDays?: number | undefined;
    actor?: Identity["actor"];
  },
): Promise<CreatedApiKey> {
  const scopes = [...new Set(input.scopes ?? DATA_SCOPES)];
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
      data: { name: input.name, scopes, prefix: created.start },
      now: new Date(deps.clock.now()),
    });
  });
  return {
    id: created.id,
    key: created.key,
    prefix: created.start ?? created.key.slice(0, 10),
    name: input.name,
    scopes,
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

/** A caller can hand out only rights it holds itself. */
export async function createApiKeyFor(
  deps: ApiKeyDeps,
  identity: Identity,
  input: { name: string; scopes?: Scope[] | undefined; expiresInDays?: number | undefined },
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
  const userId = await keyCreatorFor(deps.prisma, identity);
  return issueApiKey(deps, {
    organizationId: identity.tenantId,
    userId,
    ...input,
    scopes: wanted,
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
  });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > input.limit && last
      ? encodeCursor("apiKeys", [last.createdAt.toISOString(), last.id])
      : null;
  return { apiKeys: page.map(summarise), nextCursor };
}

function summarise(row: ApiKeyRow): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    prefix: row.start,
    scopes: permissionsToScopes(row.permissions ? JSON.parse(row.permissions) : null),
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
