import type { Prisma, PrismaClient } from "@lastword/db";
import { assertCanGrant } from "../auth/grant-rule";
import { forgetCachedApiKeys, type Identity } from "../auth/request-identity";
import { describeRule, type KeyRule, MAX_RULES_PER_KEY, ruleKey, toKeyRule } from "../auth/resource-rules";
import { permissionsToScopes } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import type { Clock } from "./api-deps";
import { auditAs } from "./audit-as";

/**
 * Reading and changing API keys' resource rules, for the REST API (`PUT /api-keys/{id}/rules`) and
 * the Kafka ACL APIs (`@lastword/api/key-rules`): within the caller's tenant only, audited as
 * `apiKey.rules.changed` with the rules before and after. Changing a key's rules can widen what it
 * does (removing its last rule of a type lifts the limit), so it is bound like revoking: the caller
 * holds at least the key's scopes, and is not itself limited by rules.
 */

export interface KeyRulesDeps {
  prisma: PrismaClient;
  clock: Clock;
}

/** A rule of a key of the caller's tenant. */
export interface TenantRule extends KeyRule {
  apiKeyId: string;
}

/** Which of the tenant's rules a read or a removal is about. */
export type RuleFilter = (rule: TenantRule) => boolean;

const EVERY_RULE: RuleFilter = () => true;

async function tenantRules(
  db: Prisma.TransactionClient,
  tenantId: string,
  filter: RuleFilter,
): Promise<TenantRule[]> {
  const rows = await db.apiKeyRule.findMany({
    where: { apiKey: { referenceId: tenantId } },
    orderBy: [{ apiKeyId: "asc" }, { createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((r) => ({ apiKeyId: r.apiKeyId, ...toKeyRule(r) })).filter(filter);
}

/** Every rule of the tenant's keys that `filter` matches. */
export function listTenantRules(
  deps: KeyRulesDeps,
  identity: Identity,
  filter: RuleFilter = EVERY_RULE,
): Promise<TenantRule[]> {
  return tenantRules(deps.prisma, identity.tenantId, filter);
}

function assertMayChangeRules(identity: Identity): void {
  if (identity.key && identity.key.rules.length > 0) {
    throw new AppError(
      "INSUFFICIENT_SCOPE",
      "An API key limited by resource rules cannot change keys' rules; use a key without rules or the console.",
      { details: { requiredScope: "keys:write" } },
    );
  }
}

/** The key, of the caller's tenant, whose rules the caller may change (its scopes are within the caller's). */
async function changeableKey(tx: Prisma.TransactionClient, identity: Identity, keyId: string) {
  const key = await tx.apiKey.findFirst({
    where: { id: keyId, referenceId: identity.tenantId },
    include: { rules: true },
  });
  if (!key) throw new AppError("API_KEY_NOT_FOUND", `API key "${keyId}" does not exist.`);
  const scopes = permissionsToScopes(key.permissions ? JSON.parse(key.permissions) : null);
  assertCanGrant(identity, { scopes }, "change the rules of a key holding");
  return { key, rules: key.rules.map(toKeyRule) };
}

function dedupe(rules: readonly KeyRule[]): KeyRule[] {
  return [...new Map(rules.map((r) => [ruleKey(r), r])).values()];
}

async function writeRules(
  tx: Prisma.TransactionClient,
  deps: KeyRulesDeps,
  identity: Identity,
  keyId: string,
  before: KeyRule[],
  after: KeyRule[],
): Promise<void> {
  if (after.length > MAX_RULES_PER_KEY) {
    throw new AppError(
      "INVALID_INPUT",
      `A key holds at most ${MAX_RULES_PER_KEY} rules; use a prefix rule to cover many names.`,
      { details: { path: "rules" } },
    );
  }
  await tx.apiKeyRule.deleteMany({ where: { apiKeyId: keyId } });
  if (after.length > 0)
    await tx.apiKeyRule.createMany({ data: after.map((r) => ({ apiKeyId: keyId, ...r })) });
  await auditAs(tx, identity, {
    action: "apiKey.rules.changed",
    target: { type: "apiKey", id: keyId },
    data: { before: before.map(describeRule), after: after.map(describeRule) },
    now: new Date(deps.clock.now()),
  });
}

/** Replaces a key's rules (an empty list lifts every limit). */
export async function replaceApiKeyRules(
  deps: KeyRulesDeps,
  identity: Identity,
  keyId: string,
  rules: readonly KeyRule[],
): Promise<KeyRule[]> {
  assertMayChangeRules(identity);
  const after = dedupe(rules);
  await deps.prisma.$transaction(async (tx) => {
    const { rules: before } = await changeableKey(tx, identity, keyId);
    await writeRules(tx, deps, identity, keyId, before, after);
  });
  forgetCachedApiKeys(deps.prisma);
  return after;
}

/** Adds rules to keys (Kafka's CreateAcls): a rule a key already holds is left as it is. */
export async function addApiKeyRules(
  deps: KeyRulesDeps,
  identity: Identity,
  keyId: string,
  rules: readonly KeyRule[],
): Promise<void> {
  assertMayChangeRules(identity);
  await deps.prisma.$transaction(async (tx) => {
    const { rules: before } = await changeableKey(tx, identity, keyId);
    const after = dedupe([...before, ...rules]);
    if (after.length === before.length) return;
    await writeRules(tx, deps, identity, keyId, before, after);
  });
  forgetCachedApiKeys(deps.prisma);
}

/**
 * Removes every rule `filter` matches from the tenant's keys (Kafka's DeleteAcls); answers what it
 * removed. Refused whole, changing nothing, when one matched key is beyond the caller.
 */
export async function removeApiKeyRules(
  deps: KeyRulesDeps,
  identity: Identity,
  filter: RuleFilter,
): Promise<TenantRule[]> {
  assertMayChangeRules(identity);
  const removed: TenantRule[] = [];
  await deps.prisma.$transaction(async (tx) => {
    const matched = (await tenantRules(tx, identity.tenantId, filter)).map((r) => r.apiKeyId);
    for (const keyId of new Set(matched)) {
      const { rules: before } = await changeableKey(tx, identity, keyId);
      const gone = before.filter((r) => filter({ apiKeyId: keyId, ...r }));
      const after = before.filter((r) => !gone.includes(r));
      await writeRules(tx, deps, identity, keyId, before, after);
      removed.push(...gone.map((r) => ({ apiKeyId: keyId, ...r })));
    }
  });
  forgetCachedApiKeys(deps.prisma);
  return removed;
}
