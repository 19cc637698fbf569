import { latestViewBase } from "../records/latest-view-name";
import {
  type KeyRule,
  type ResourceOperation,
  type ResourceType,
  resourceActOf,
  rulesAllow,
} from "./resource-rules";
import { expandScopes, hasScope, type Role, type Scope, scopesOfRole } from "./scopes";

/**
 * The one decision of whether a caller may do an act, for REST/tRPC (trpc/access.ts) and the Kafka
 * listener (the worker's kafka-authorization.ts) alike: the scope the act needs, held by the
 * caller's effective scopes, and, for an API key, its resource rules on every topic and group the
 * act touches. Every refusal says why.
 */

/** What limits an API key beyond the scopes it was made with. */
export interface KeyLimits {
  /** The scopes the key was made with. */
  scopes: readonly Scope[];
  /** Its creator's role in the key's tenant now; null when the creator is no longer a member. */
  creatorRole: Role | null;
  rules: readonly KeyRule[];
}

/** Who acts: a member (their role's scopes) or an API key (`key` set, `scopes` its effective ones). */
export interface Grantee {
  role: Role | null;
  scopes: readonly Scope[];
  key?: KeyLimits | undefined;
}

export interface ActResource {
  type: ResourceType;
  name: string;
  /** Defaults to what the act's scope needs on its own resource type, `describe` on the other. */
  operation?: ResourceOperation;
}

export interface Act {
  scope: Scope;
  resources?: readonly ActResource[];
}

export interface ActRefusal {
  message: string;
  details: {
    requiredScope: Scope;
    creatorRole?: Role | null;
    resource?: { type: ResourceType; name: string; operation: ResourceOperation };
  };
}

/**
 * A key acts with at most its creator's current role: its scopes ∩ the role's (`admin` expanded
 * on both sides, so `admin` survives only when both hold it). A creator who left gives nothing.
 */
export function effectiveScopes(keyScopes: readonly Scope[], creatorRole: Role | null): Scope[] {
  if (creatorRole === null) return [];
  const role = new Set(expandScopes(scopesOfRole(creatorRole)));
  return expandScopes(keyScopes).filter((scope) => role.has(scope));
}

function who(grantee: Grantee): string {
  return grantee.role ? `The ${grantee.role} role` : "This API key";
}

function scopeRefusal(grantee: Grantee, scope: Scope): ActRefusal | null {
  if (hasScope(grantee.scopes, scope)) return null;
  const key = grantee.key;
  if (key && hasScope(key.scopes, scope)) {
    const message =
      key.creatorRole === null
        ? `This API key's creator is no longer a member of this tenant, so the key acts with no scopes (it lacks ${scope}).`
        : `This API key acts with at most its creator's current role (${key.creatorRole}), which lacks the ${scope} scope this operation needs.`;
    return { message, details: { requiredScope: scope, creatorRole: key.creatorRole } };
  }
  return {
    message: `${who(grantee)} lacks the ${scope} scope this operation needs.`,
    details: { requiredScope: scope },
  };
}

/** Why `grantee` may not do `act`, or null when it may. */
export function actRefusal(grantee: Grantee, act: Act): ActRefusal | null {
  const refused = scopeRefusal(grantee, act.scope);
  if (refused || !grantee.key) return refused;
  const own = resourceActOf(act.scope);
  for (const resource of act.resources ?? []) {
    const operation = resource.operation ?? (own?.type === resource.type ? own.operation : "describe");
    // A topic's latest-value view (`orders.latest`) is that topic's data: its rules are the topic's.
    const name = resource.type === "topic" ? (latestViewBase(resource.name) ?? resource.name) : resource.name;
    if (rulesAllow(grantee.key.rules, resource.type, name, operation)) continue;
    return {
      message: `This API key's ${resource.type} rules do not allow ${operation} on the ${resource.type} "${resource.name}".`,
      details: {
        requiredScope: act.scope,
        resource: { type: resource.type, name: resource.name, operation },
      },
    };
  }
  return null;
}

export function mayAct(grantee: Grantee, act: Act): boolean {
  return actRefusal(grantee, act) === null;
}

/**
 * Whether `grantee` may see that a topic (or group) exists: what lists show (REST's topic and group
 * lists, Kafka's Metadata, ListGroups and DescribeLogDirs leave the others out, as Kafka lists only
 * what a principal may DESCRIBE).
 */
export function mayDescribe(grantee: Grantee, type: ResourceType, name: string): boolean {
  return mayAct(grantee, {
    scope: type === "topic" ? "topics:read" : "groups:read",
    resources: [{ type, name, operation: "describe" }],
  });
}
