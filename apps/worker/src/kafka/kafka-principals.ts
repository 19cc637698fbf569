import { timingSafeEqual } from "node:crypto";
import {
  effectiveScopes,
  type Grantee,
  hashApiKey,
  isDatabaseUnreachable,
  isRole,
  permissionsToScopes,
  STALE_IF_UNREACHABLE_MS,
  toKeyRule,
} from "@lastword/api/key-auth";
import type { PrismaClient } from "@lastword/db";
import {
  mockScramCredential,
  SaslError,
  type ScramCredential,
  type ScramMechanism,
} from "@lastword/kafka-auth";
import { TtlCache } from "./ttl-cache";

/**
 * Who a Kafka connection acts for once SASL completes: the API key and its tenant, and what the key
 * may do now (`grant`: its scopes within its creator's current role, and its rules). The listener's
 * sweep replaces `grant` when the key's creator changes role or leaves, or its rules or scopes change,
 * so every open connection acts on the current rights within REVOCATION_SWEEP_MS.
 */
export interface KafkaPrincipal {
  keyId: string;
  tenantId: string;
  grant: Grantee;
}

interface KeyRow {
  principal: KafkaPrincipal;
  hash: string;
  enabled: boolean;
  expiresAt: number | null;
  /** When Postgres answered this row: a copy served during an outage is refused past the grace. */
  verifiedAt: number;
  scram: Map<string, ScramCredential>;
}

/**
 * How long a looked-up key is reused: clients open two authenticated sockets per broker and
 * reconnect in storms, so a burst costs one query per key; revocation reaches open connections
 * through `refresh` on the listener's sweep.
 */
export const KEY_CACHE_MS = 2_000;
/**
 * While Postgres cannot be reached, a key verified from it within this long still logs in (from the
 * verified copy, with the rights it had then): the REST API's stale-if-unreachable bound. Postgres
 * being down, nobody can revoke meanwhile; a revocation made before the outage was seen by the
 * verification the copy came from, or is refused once Postgres answers again.
 */
export const KEY_OUTAGE_GRACE_MS = STALE_IF_UNREACHABLE_MS;
/** Verified copies kept for outages: beyond this many keys the oldest are forgotten. */
const MAX_VERIFIED_KEYS = 10_000;
// Every failure reads the same, so a client learns nothing about which key ids exist.
const INVALID = "Authentication failed: invalid API key id or secret, or the key is revoked or expired.";

export class KafkaPrincipals {
  readonly #prisma: PrismaClient;
  readonly #now: () => number;
  readonly #mockSecret: string;
  readonly #cache: TtlCache<string, KeyRow | null>;
  /** The last row Postgres answered for each key, and when: what logins use while it is unreachable. */
  readonly #verified = new Map<string, KeyRow>();
  #loads = 0;

  /** `mockSecret` keys the stand-in SCRAM salts of unknown key ids (the workers' shared secret). */
  constructor(prisma: PrismaClient, now: () => number, mockSecret: string) {
    this.#prisma = prisma;
    this.#mockSecret = mockSecret;
    this.#now = now;
    this.#cache = new TtlCache({ ttlMs: KEY_CACHE_MS, now });
  }

  /** Keys looked up in Postgres so far (cache misses): what a reconnect storm costs the database. */
  get credentialLoads(): number {
    return this.#loads;
  }

  /** SASL PLAIN: the key id as user name, its secret as password. */
  async verifyPlain(keyId: string, secret: string): Promise<KafkaPrincipal> {
    const row = await this.#row(keyId);
    const given = Buffer.from(hashApiKey(secret));
    if (
      !row ||
      !usable(row, this.#now()) ||
      given.length !== row.hash.length ||
      !timingSafeEqual(given, Buffer.from(row.hash))
    ) {
      throw new SaslError(INVALID);
    }
    return row.principal;
  }

  /**
   * The stored SCRAM credential of a key; keys created before SCRAM existed have none (PLAIN only).
   * A key id with no usable credential (unknown, revoked, expired, PLAIN only) gets a stand-in and
   * no principal: the exchange fails at its final message, exactly as a wrong secret does.
   */
  async scram(
    keyId: string,
    mechanism: ScramMechanism,
  ): Promise<{ principal: KafkaPrincipal | null; credential: ScramCredential }> {
    const row = await this.#row(keyId);
    const credential = row && usable(row, this.#now()) ? row.scram.get(mechanism) : undefined;
    if (!row || !credential)
      return { principal: null, credential: mockScramCredential(mechanism, keyId, this.#mockSecret) };
    return { principal: row.principal, credential };
  }

  /**
   * What each of `keyIds` may do now, fresh from Postgres; null for a key that is revoked, expired
   * or gone. Refreshes the login cache's copies too.
   */
  async refresh(keyIds: readonly string[]): Promise<Map<string, Grantee | null>> {
    const fresh = new Map<string, Grantee | null>(keyIds.map((id) => [id, null]));
    if (keyIds.length === 0) return fresh;
    const rows = await this.#loadRows([...keyIds]);
    const now = this.#now();
    for (const row of rows) fresh.set(row.principal.keyId, usable(row, now) ? row.principal.grant : null);
    return fresh;
  }

  async #row(keyId: string): Promise<KeyRow | null> {
    const row = await this.#cache.get(keyId, () => this.#load(keyId));
    if (row && this.#now() - row.verifiedAt > KEY_OUTAGE_GRACE_MS) {
      this.#cache.forget(keyId);
      // Not a refusal of the key: the connection closes and the client retries, as while unverified.
      throw new Error(
        `API key ${keyId} was last verified over ${KEY_OUTAGE_GRACE_MS} ms ago and Postgres is unreachable`,
      );
    }
    return row;
  }

  async #load(keyId: string): Promise<KeyRow | null> {
    this.#loads++;
    try {
      const [row] = await this.#loadRows([keyId]);
      return row ?? null;
    } catch (error) {
      const copy = this.#verified.get(keyId);
      if (!isDatabaseUnreachable(error) || !copy || this.#now() - copy.verifiedAt > KEY_OUTAGE_GRACE_MS)
        throw error;
      return copy;
    }
  }

  /** The keys' rows with their SCRAM credentials, rules and creators' roles, in two queries. */
  async #loadRows(keyIds: string[]): Promise<KeyRow[]> {
    const keys = await this.#prisma.apiKey.findMany({
      where: { id: { in: keyIds } },
      include: { scramCredentials: true, rules: true },
    });
    const creators = keys.flatMap((k) =>
      k.createdByUserId ? [{ organizationId: k.referenceId, userId: k.createdByUserId }] : [],
    );
    const members =
      creators.length === 0
        ? []
        : await this.#prisma.member.findMany({
            where: { OR: creators },
            select: { organizationId: true, userId: true, role: true },
          });
    const roleOf = new Map(members.map((m) => [`${m.organizationId}\u0000${m.userId}`, m.role]));
    const now = this.#now();
    return keys.map((key) => {
      const stored = key.createdByUserId
        ? roleOf.get(`${key.referenceId}\u0000${key.createdByUserId}`)
        : undefined;
      const creatorRole = stored !== undefined && isRole(stored) ? stored : null;
      const keyScopes = permissionsToScopes(key.permissions ? JSON.parse(key.permissions) : null);
      const scram = new Map<string, ScramCredential>();
      for (const c of key.scramCredentials) {
        scram.set(c.mechanism, {
          mechanism: c.mechanism as ScramMechanism,
          salt: Buffer.from(c.salt),
          iterations: c.iterations,
          storedKey: Buffer.from(c.storedKey),
          serverKey: Buffer.from(c.serverKey),
        });
      }
      const row: KeyRow = {
        principal: {
          keyId: key.id,
          tenantId: key.referenceId,
          grant: {
            role: null,
            scopes: effectiveScopes(keyScopes, creatorRole),
            key: { scopes: keyScopes, creatorRole, rules: key.rules.map(toKeyRule) },
          },
        },
        hash: key.key,
        enabled: key.enabled !== false,
        expiresAt: key.expiresAt?.getTime() ?? null,
        verifiedAt: now,
        scram,
      };
      this.#remember(row);
      return row;
    });
  }

  #remember(row: KeyRow): void {
    const id = row.principal.keyId;
    this.#verified.delete(id);
    if (this.#verified.size >= MAX_VERIFIED_KEYS) {
      const oldest = this.#verified.keys().next().value;
      if (oldest !== undefined) this.#verified.delete(oldest);
    }
    this.#verified.set(id, row);
  }
}

function usable(row: KeyRow, now: number): boolean {
  return row.enabled && (row.expiresAt === null || row.expiresAt > now);
}
