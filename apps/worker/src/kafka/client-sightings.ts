import { LAST_USED_RESOLUTION_MS } from "@lastword/api/key-auth";
import type { PrismaClient } from "@lastword/db";
import type { Clock } from "@lastword/logstore";
import type { Logger } from "../logger";

export type ClientRole = "producer" | "consumer";

export interface ClientIdentity {
  clientId: string;
  /** From ApiVersions v3; "" when the client sent an older version. */
  softwareName: string;
  softwareVersion: string;
}

/** How often sightings are written: the console shows "recently", not this second. */
export const CLIENT_SIGHTINGS_FLUSH_MS = 10_000;
/** Distinct sightings held between flushes; past it new ones wait for the next flush. */
const MAX_PENDING = 10_000;

/**
 * Which clients produced to and consumed from which topics (the console's topic page lists them).
 * Requests only mark a sighting in memory; a timer writes each distinct one once per flush as an
 * upsert of its last-seen time, so a busy producer costs one row write per interval, not per request.
 * The API keys that authenticated requests are marked the same way, for their "last used" time.
 */
export class ClientSightings {
  readonly #prisma: PrismaClient;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #pending = new Map<
    string,
    { topicId: string; role: ClientRole; who: ClientIdentity; at: number }
  >();
  /** Keys used since the last flush, with when. */
  readonly #keysUsed = new Map<string, number>();
  /** When each key's use was last written, so a busy key is written once a minute, not per flush. */
  readonly #keysWritten = new Map<string, number>();
  readonly #timer: NodeJS.Timeout;

  constructor(
    deps: { prisma: PrismaClient; clock: Clock; logger: Logger },
    flushMs = CLIENT_SIGHTINGS_FLUSH_MS,
  ) {
    this.#prisma = deps.prisma;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#timer = setInterval(() => void this.flush(), flushMs);
    this.#timer.unref();
  }

  seen(topicId: string, role: ClientRole, who: ClientIdentity): void {
    const key = JSON.stringify([topicId, role, who.clientId, who.softwareName, who.softwareVersion]);
    if (!this.#pending.has(key) && this.#pending.size >= MAX_PENDING) return;
    this.#pending.set(key, { topicId, role, who, at: this.#clock.now() });
  }

  /** A request authenticated by `keyId` was served: its "last used" moves on at the next flush. */
  keyUsed(keyId: string): void {
    const now = this.#clock.now();
    const written = this.#keysWritten.get(keyId);
    if (written !== undefined && now - written < LAST_USED_RESOLUTION_MS) return;
    if (!this.#keysUsed.has(keyId) && this.#keysUsed.size >= MAX_PENDING) return;
    this.#keysUsed.set(keyId, now);
  }

  /** Writes what was seen since the last flush; a failed write is logged and dropped. */
  async flush(): Promise<void> {
    await this.#flushKeys();
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.#pending.clear();
    for (const s of batch) {
      try {
        // GREATEST: another worker may have recorded a later sighting of the same client meanwhile.
        await this.#prisma.$executeRaw`
          INSERT INTO "KafkaClientSeen" ("topicId", "role", "clientId", "softwareName", "softwareVersion", "lastSeenAt")
          VALUES (${s.topicId}, ${s.role}, ${s.who.clientId}, ${s.who.softwareName}, ${s.who.softwareVersion}, ${new Date(s.at)})
          ON CONFLICT ("topicId", "role", "clientId", "softwareName", "softwareVersion")
          DO UPDATE SET "lastSeenAt" = GREATEST("KafkaClientSeen"."lastSeenAt", EXCLUDED."lastSeenAt")`;
      } catch (error) {
        // A topic deleted meanwhile, or Postgres away: the sighting is a hint, not worth a retry.
        this.#logger.warn({ err: error, topicId: s.topicId }, "kafka client sighting not written");
      }
    }
  }

  async #flushKeys(): Promise<void> {
    if (this.#keysUsed.size === 0) return;
    const batch = [...this.#keysUsed];
    this.#keysUsed.clear();
    if (this.#keysWritten.size > MAX_PENDING) this.#keysWritten.clear();
    for (const [keyId, at] of batch) {
      this.#keysWritten.set(keyId, at);
      const lastRequest = new Date(at);
      try {
        // Only forward, and only past the resolution: the REST API or another worker may have
        // written a later (or a close enough) time meanwhile.
        await this.#prisma.apiKey.updateMany({
          where: {
            id: keyId,
            OR: [{ lastRequest: null }, { lastRequest: { lt: new Date(at - LAST_USED_RESOLUTION_MS) } }],
          },
          data: { lastRequest },
        });
      } catch (error) {
        this.#logger.warn({ err: error, keyId }, "api key last use not written");
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}

/** Removes the sightings last seen before `before` (older than the console shows); answers how many. */
export async function pruneSightings(prisma: PrismaClient, before: Date): Promise<number> {
  const { count } = await prisma.kafkaClientSeen.deleteMany({ where: { lastSeenAt: { lt: before } } });
  return count;
}
