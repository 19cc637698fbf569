import { z } from "zod";
import type { Scope } from "./scopes";

/**
 * A key's resource rules: which topics and consumer groups it may act on, by literal name or by
 * prefix, for read, write or admin acts (Kafka's ACLs, as hosted Kafka services and `kafka-acls`
 * users know them, restricted to ALLOW). Scopes say what kind of act a key may do anywhere in its
 * tenant; rules narrow where. A key without a rule of a resource type acts on every resource of
 * that type its scopes allow; its first rule of a type limits it to the rules of that type.
 *
 * Browser-safe (the console's key form imports it through `@lastword/api/access-rules`).
 */

export const RESOURCE_TYPES = ["topic", "group"] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export const PATTERN_TYPES = ["literal", "prefixed"] as const;
export type PatternType = (typeof PATTERN_TYPES)[number];

/** `admin` stands for read and write too, as Kafka's ALL stands for every operation. */
export const RULE_OPERATIONS = ["read", "write", "admin"] as const;
export type RuleOperation = (typeof RULE_OPERATIONS)[number];

/** What an act needs on its resource: `describe` (seeing it exists) is allowed by any rule that matches. */
export type ResourceOperation = RuleOperation | "describe";

/** Rules one key may hold (Kafka has no limit; a key that needs more wants a prefix). */
export const MAX_RULES_PER_KEY = 100;

/** A literal `*` matches every resource of its type, as Kafka's wildcard resource name. */
export const WILDCARD = "*";

const ruleNameSchema = z
  .string()
  .min(1)
  .max(249)
  .regex(/^([a-zA-Z0-9._-]+|\*)$/, "is a topic or group name (letters, digits, '.', '_', '-') or '*'");

export const keyRuleSchema = z
  .object({
    resourceType: z.enum(RESOURCE_TYPES),
    patternType: z.enum(PATTERN_TYPES),
    name: ruleNameSchema,
    operation: z.enum(RULE_OPERATIONS),
  })
  .refine((r) => !(r.patternType === "prefixed" && r.name === WILDCARD), {
    message: "a prefix rule names a prefix; '*' is a literal rule matching everything",
    path: ["name"],
  })
  .meta({
    description:
      "Allows `operation` on the topics (or groups) named `name` (literal) or starting with it (prefixed); `*` literal matches all",
    example: { resourceType: "topic", patternType: "prefixed", name: "orders.", operation: "read" },
  });

export type KeyRule = z.infer<typeof keyRuleSchema>;

export const keyRulesSchema = z.array(keyRuleSchema).max(MAX_RULES_PER_KEY);

type ResourceAct = Readonly<{ type: ResourceType; operation: ResourceOperation }>;

const RESOURCE_ACTS: Partial<Record<Scope, ResourceAct>> = {
  "topics:read": { type: "topic", operation: "describe" },
  "records:read": { type: "topic", operation: "read" },
  "records:write": { type: "topic", operation: "write" },
  "topics:write": { type: "topic", operation: "admin" },
  "groups:read": { type: "group", operation: "read" },
  "groups:write": { type: "group", operation: "write" },
};

/**
 * The resource an act of `scope` is on and the operation it needs there, derived from the REST
 * API's scopes: reading metadata is `describe`, reading records `read`, writing records `write`,
 * changing a topic itself `admin`; a group's members and positions `read`, changing another's
 * offsets or deleting it `write`. Scopes outside topics and groups (keys, members, erasure) are
 * not limited by rules.
 */
export function resourceActOf(scope: Scope): ResourceAct | null {
  return RESOURCE_ACTS[scope] ?? null;
}

function matches(rule: KeyRule, name: string): boolean {
  if (rule.patternType === "prefixed") return name.startsWith(rule.name);
  return rule.name === WILDCARD || rule.name === name;
}

function grants(rule: KeyRule, operation: ResourceOperation): boolean {
  return operation === "describe" || rule.operation === "admin" || rule.operation === operation;
}

/** Whether `rules` let a key do `operation` on the resource `name` of `type`. */
export function rulesAllow(
  rules: readonly KeyRule[],
  type: ResourceType,
  name: string,
  operation: ResourceOperation,
): boolean {
  const ofType = rules.filter((r) => r.resourceType === type);
  if (ofType.length === 0) return true;
  return ofType.some((r) => matches(r, name) && grants(r, operation));
}

/** Whether a key with `rules` is limited on resources of `type` at all. */
export function limitsType(rules: readonly KeyRule[], type: ResourceType): boolean {
  return rules.some((r) => r.resourceType === type);
}

/** A rule as people read it: `read topic orders.*`, `write group billing`. */
export function describeRule(rule: KeyRule): string {
  const name = rule.patternType === "prefixed" ? `${rule.name}*` : rule.name;
  return `${rule.operation} ${rule.resourceType} ${name}`;
}

/** The same rule twice is one rule (Kafka's CreateAcls of an existing binding changes nothing). */
export function ruleKey(rule: KeyRule): string {
  return [rule.resourceType, rule.patternType, rule.name, rule.operation].join("\u0001");
}

/** A stored rule row as the rules' type (its columns hold only values the schema allowed). */
export function toKeyRule(row: {
  resourceType: string;
  patternType: string;
  name: string;
  operation: string;
}): KeyRule {
  return {
    resourceType: row.resourceType as ResourceType,
    patternType: row.patternType as PatternType,
    name: row.name,
    operation: row.operation as RuleOperation,
  };
}

/** Whether `outer` allows everything `inner` does (same type, an operation at least as wide, a name set that contains it). */
export function ruleCovers(outer: KeyRule, inner: KeyRule): boolean {
  if (outer.resourceType !== inner.resourceType) return false;
  if (outer.operation !== "admin" && outer.operation !== inner.operation) return false;
  if (outer.patternType === "literal") {
    return outer.name === WILDCARD || (inner.patternType === "literal" && inner.name === outer.name);
  }
  return inner.name !== WILDCARD && inner.name.startsWith(outer.name);
}

/**
 * The rules a key made by a rule-limited granter gets: per resource type the granter is limited
 * on, the requested rules of that type if each lies within one of the granter's (else null: the
 * grant would exceed it), or the granter's own when none of that type is requested. A type the
 * granter is not limited on keeps whatever was requested.
 */
export function rulesWithin(granter: readonly KeyRule[], requested: readonly KeyRule[]): KeyRule[] | null {
  const out: KeyRule[] = [];
  for (const type of RESOURCE_TYPES) {
    const held = granter.filter((r) => r.resourceType === type);
    const wanted = requested.filter((r) => r.resourceType === type);
    if (held.length === 0 || wanted.length === 0) {
      out.push(...(wanted.length > 0 ? wanted : held));
      continue;
    }
    if (!wanted.every((w) => held.some((h) => ruleCovers(h, w)))) return null;
    out.push(...wanted);
  }
  return out;
}
