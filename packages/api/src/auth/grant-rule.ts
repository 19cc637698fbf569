import { AppError } from "../errors/app-error";
import { expandScopes, type Role, type Scope, scopesOfRole } from "./scopes";

/**
 * The one rule for handing out rights: nobody grants (or takes away) a role or scope above their
 * own, and only owners make owners. Every service that changes who may do what asks it: invite,
 * change role, remove a member, accept an invitation (again, for the inviter as they are now),
 * create and revoke API keys.
 */

/** Who is granting: a member's role (console sessions) or an API key's scopes (role null). */
export interface Granter {
  role: Role | null;
  scopes: readonly Scope[];
}

/** What is being handed out, or what a right being changed or revoked currently holds. */
export type Grant = { role: Role } | { scopes: readonly Scope[] };

export interface GrantShortfall {
  /** Scopes the grant carries that the granter lacks (`admin` only when held literally). */
  missingScopes: Scope[];
  /** The grant is ownership, which only an owner hands out; a key is never an owner. */
  needsOwner: boolean;
}

function grantedScopes(grant: Grant): readonly Scope[] {
  return "role" in grant ? scopesOfRole(grant.role) : grant.scopes;
}

/**
 * `admin` stands for every scope, so a granter needs `admin` itself to grant it: a key listing
 * every other scope still cannot make an admin (it lacks what `admin` alone unlocks).
 */
export function grantShortfall(granter: Granter, grant: Grant): GrantShortfall {
  const held = new Set(expandScopes(granter.scopes));
  const missingScopes = expandScopes(grantedScopes(grant)).filter((scope) => !held.has(scope));
  const needsOwner = "role" in grant && grant.role === "owner" && granter.role !== "owner";
  return { missingScopes: held.has("admin") ? [] : compact(missingScopes), needsOwner };
}

// `admin` expands to every scope; naming it alone reads better than listing all thirteen.
function compact(missing: Scope[]): Scope[] {
  return missing.includes("admin") ? ["admin"] : missing;
}

export function canGrant(granter: Granter, grant: Grant): boolean {
  const { missingScopes, needsOwner } = grantShortfall(granter, grant);
  return missingScopes.length === 0 && !needsOwner;
}

function describeGranter(granter: Granter): string {
  return granter.role ? `The ${granter.role} role` : "This API key";
}

function describeGrant(grant: Grant): string {
  return "role" in grant ? `the ${grant.role} role` : `the scopes ${grant.scopes.join(", ")}`;
}

/**
 * Throws INSUFFICIENT_SCOPE (403) unless `granter` may hand out `grant`; `action` completes the
 * sentence ("invite someone with", "revoke a key holding").
 */
export function assertCanGrant(granter: Granter, grant: Grant, action: string): void {
  const { missingScopes, needsOwner } = grantShortfall(granter, grant);
  if (needsOwner) {
    throw new AppError(
      "INSUFFICIENT_SCOPE",
      `Only an owner can ${action} the owner role; ${describeGranter(granter).toLowerCase()} cannot.`,
      { details: { missingScopes: [], requiredRole: "owner" } },
    );
  }
  if (missingScopes.length > 0) {
    throw new AppError(
      "INSUFFICIENT_SCOPE",
      `${describeGranter(granter)} cannot ${action} ${describeGrant(grant)}: it lacks ${missingScopes.join(", ")}.`,
      { details: { missingScopes } },
    );
  }
}
