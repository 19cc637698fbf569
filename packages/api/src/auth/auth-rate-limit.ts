import type { Clock } from "@lastword/logstore";
import type { Redis } from "ioredis";
import { AppError } from "../errors/app-error";

/**
 * Limits on better-auth's password and mail endpoints, per client address (http/client-address.ts:
 * the TCP peer, or what trusted proxies forwarded), counted in Redis so every web process shares
 * them. Fixed windows: one counter per rule, address and window, added to with INCR then PEXPIRE.
 * The 10-second rules are better-auth's own defaults (which keyed on a header anyone can write);
 * the hourly sign-up rule bounds how many accounts, each with its own tenant, one address makes.
 */
export interface AuthRateRule {
  /** Names the counter and the refusal. */
  name: string;
  /** Paths below /api/auth the rule counts. */
  matches(path: string): boolean;
  max: number;
  windowMs: number;
}

const startsWithAny =
  (...prefixes: string[]) =>
  (path: string) =>
    prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));

export const AUTH_RATE_RULES: readonly AuthRateRule[] = [
  { name: "sign-in", matches: startsWithAny("/sign-in"), max: 3, windowMs: 10_000 },
  { name: "sign-up", matches: startsWithAny("/sign-up"), max: 3, windowMs: 10_000 },
  { name: "sign-up-hourly", matches: startsWithAny("/sign-up"), max: 60, windowMs: 3_600_000 },
  {
    name: "credential-change",
    matches: startsWithAny("/change-password", "/change-email"),
    max: 3,
    windowMs: 10_000,
  },
  {
    // Each sends mail: a flood would be ours, to anyone's address.
    name: "mail",
    matches: startsWithAny("/send-verification-email", "/request-password-reset", "/forget-password"),
    max: 3,
    windowMs: 60_000,
  },
];

export interface RateCounterDeps {
  redis: Redis;
  redisPrefix: string;
  clock: Clock;
}

/** Counts one attempt in `rule`'s current window for `subject`; the count after it and the window's end. */
async function countAttempt(
  deps: RateCounterDeps,
  rule: { name: string; windowMs: number },
  subject: string,
) {
  const now = deps.clock.now();
  const index = Math.floor(now / rule.windowMs);
  const key = `${deps.redisPrefix}:authrate:${rule.name}:${subject}:${index}`;
  const results = await deps.redis
    .multi()
    .incr(key)
    .pexpire(key, rule.windowMs * 2)
    .exec();
  const count = Number(results?.[0]?.[1] ?? 0);
  return { count, retryAfterSeconds: Math.max(1, Math.ceil(((index + 1) * rule.windowMs - now) / 1000)) };
}

/** 429 RATE_LIMITED (with Retry-After) when an attempt at `path` from `address` is over a rule. */
export async function enforceAuthRate(deps: RateCounterDeps, path: string, address: string): Promise<void> {
  for (const rule of AUTH_RATE_RULES.filter((r) => r.matches(path))) {
    const { count, retryAfterSeconds } = await countAttempt(deps, rule, address);
    if (count > rule.max) {
      throw new AppError(
        "RATE_LIMITED",
        `Too many attempts from this address (${rule.max} per ${rule.windowMs / 1000} s for ${rule.name}); try again in ${retryAfterSeconds} s.`,
        { retryAfterSeconds, details: { limit: rule.name } },
      );
    }
  }
}

/** How many organizations a user may create per hour (each is a tenant with the default quota). */
export const ORGANIZATION_CREATIONS_PER_HOUR = 3;

/** 429 when `userId` has created ORGANIZATION_CREATIONS_PER_HOUR organizations this hour. */
export async function enforceOrganizationCreationRate(deps: RateCounterDeps, userId: string): Promise<void> {
  const rule = { name: "organization-create", windowMs: 3_600_000 };
  const { count, retryAfterSeconds } = await countAttempt(deps, rule, `user:${userId}`);
  if (count > ORGANIZATION_CREATIONS_PER_HOUR) {
    throw new AppError(
      "RATE_LIMITED",
      `You created ${ORGANIZATION_CREATIONS_PER_HOUR} organizations in the last hour; try again in ${retryAfterSeconds} s.`,
      { retryAfterSeconds, details: { limit: rule.name } },
    );
  }
}

/**
 * How long one user's organization creation holds its per-user lock at most (released when the
 * organization and its owner row exist; this bound only matters when a creation dies half-way).
 */
export const ORGANIZATION_CREATION_LOCK_MS = 10_000;

const creationLockKey = (deps: RateCounterDeps, userId: string) =>
  `${deps.redisPrefix}:org-create-lock:${userId}`;

/**
 * Takes the user's creation lock, so the owned-organization count a creation checks cannot be
 * raced by the same user's parallel creations; false when another one holds it.
 */
export async function lockOrganizationCreation(deps: RateCounterDeps, userId: string): Promise<boolean> {
  const taken = await deps.redis.set(
    creationLockKey(deps, userId),
    "1",
    "PX",
    ORGANIZATION_CREATION_LOCK_MS,
    "NX",
  );
  return taken === "OK";
}

export async function unlockOrganizationCreation(deps: RateCounterDeps, userId: string): Promise<void> {
  await deps.redis.del(creationLockKey(deps, userId));
}
