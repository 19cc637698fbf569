import { timingSafeEqual } from "node:crypto";
import { hashApiKey, permissionsToScopes, type Scope } from "@lastword/api/key-auth";
import type { PrismaClient } from "@lastword/db";
import { SaslError, type ScramCredential, type ScramMechanism } from "@lastword/kafka-auth";
import { TtlCache } from "./ttl-cache";

/** Who a Kafka connection acts for once SASL completes: the API key, its tenant and scopes. */
export interface KafkaPrincipal {
  keyId: string;
  tenantId: string;
  scopes: readonly Scope[];
}

interface KeyRow {
  principal: KafkaPrincipal;
  hash: string;
  usable: boolean;
  scram: Map<string, ScramCredential>;
}

/**
 * How long a looked-up key is reused: clients open two authenticated sockets per broker and
 * reconnect in storms, so a burst costs one query per key; revocation reaches open connections
 * through `stillUsable` on the listener's sweep.
 */
export const KEY_CACHE_MS = 2_000;
// Every failure reads the same, so a client learns nothing about which key ids exist.
const INVALID = "Authentication failed: invalid API key id or secret, or the key is revoked or expired.";

export class KafkaPrincipals {
  readonly #prisma: PrismaClient;
  readonly #now: () => number;
  readonly #cache: TtlCache<string, KeyRow | null>;
  #loads = 0;

  constructor(prisma: PrismaClient, now: () => number) {
    this.#prisma = prisma;
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
    if (!row?.usable || given.length !== row.hash.length || !timingSafeEqual(given, Buffer.from(row.hash))) {
      throw new SaslError(INVALID);
    }
    return row.principal;
  }

  /** The stored SCRAM credential of a key; keys created before SCRAM existed have none (PLAIN only). */
  async scram(
    keyId: string,
    mechanism: ScramMechanism,
  ): Promise<{ principal: KafkaPrincipal; credential: ScramCredential }> {
    const row = await this.#row(keyId);
    const credential = row?.usable ? row.scram.get(mechanism) : undefined;
    if (!row || !credential) throw new SaslError(INVALID);
    return { principal: row.principal, credential };
  }

  /** The ids among `keyIds` that are still enabled and unexpired (fresh from Postgres). */
  async stillUsable(keyIds: readonly string[]): Promise<Set<string>> {
    if (keyIds.length === 0) return new Set();
    const rows = await this.#prisma.apiKey.findMany({
      where: { id: { in: [...keyIds] } },
      select: { id: true, enabled: true, expiresAt: true },
    });
    const now = this.#now();
    return new Set(rows.filter((r) => usable(r, now)).map((r) => r.id));
  }

  #row(keyId: string): Promise<KeyRow | null> {
    return this.#cache.get(keyId, () => this.#load(keyId));
  }

  async #load(keyId: string): Promise<KeyRow | null> {
    this.#loads++;
    const key = await this.#prisma.apiKey.findUnique({
      where: { id: keyId },
      include: { scramCredentials: true },
    });
    if (!key) return null;
    const permissions: unknown = key.permissions ? JSON.parse(key.permissions) : null;
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
    return {
      principal: { keyId: key.id, tenantId: key.referenceId, scopes: permissionsToScopes(permissions) },
      hash: key.key,
      usable: usable(key, this.#now()),
      scram,
    };
  }
}

function usable(key: { enabled: boolean | null; expiresAt: Date | null }, now: number): boolean {
  return key.enabled !== false && (key.expiresAt === null || key.expiresAt.getTime() > now);
}
