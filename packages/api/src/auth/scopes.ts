/**
 * Scopes are what a caller may do inside its tenant. An API key carries scopes directly; a console
 * session gets the scopes of its member's role. Every procedure names the one scope it needs, and
 * trpc/access.ts is the only place that checks it.
 */
export const SCOPES = [
  "topics:read",
  "topics:write",
  "records:read",
  "records:write",
  "groups:read",
  "groups:write",
  "keys:read",
  "keys:write",
  "members:read",
  "members:write",
  "erasure:read",
  "erasure:write",
  // The schema registry (/schema-registry): reading subjects, versions and configs; registering, deleting, configuring.
  "schemas:read",
  "schemas:write",
  "admin",
] as const;

export type Scope = (typeof SCOPES)[number];

export const ROLES = ["owner", "admin", "developer", "compliance", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a key created through the API or console gets when its creator names no scopes: reading only, so a leaked default key cannot
 * change anything. It still consumes over Kafka in a group (membership and a member's own offset
 * commits need groups:read, as Kafka's Group READ); writes are opted into by naming them.
 */
export const DEFAULT_API_KEY_SCOPES: readonly Scope[] = ["topics:read", "records:read", "groups:read"];

/**
 * Everything a program producing and consuming needs, nothing administrative: the developer
 * role's data rights, and what an operator-issued key (CLI, demo, `ApiServer.createApiKey`) gets.
 */
export const DATA_SCOPES: readonly Scope[] = SCOPES.filter((scope) =>
  ["topics", "records", "groups", "schemas"].includes(scope.split(":")[0]!),
);

// compliance reads topic metadata and runs erasure requests (keys and metadata) but never reads record values.
const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: ["admin"],
  admin: ["admin"],
  developer: [...DATA_SCOPES, "keys:read", "keys:write", "members:read"],
  compliance: ["topics:read", "groups:read", "erasure:read", "erasure:write"],
  viewer: ["topics:read", "records:read", "groups:read", "schemas:read"],
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function scopesOfRole(role: Role): Scope[] {
  return [...ROLE_SCOPES[role]];
}

/** `admin` stands for every scope. */
export function hasScope(granted: readonly Scope[], needed: Scope): boolean {
  return granted.includes("admin") || granted.includes(needed);
}

export function expandScopes(granted: readonly Scope[]): Scope[] {
  return granted.includes("admin") ? [...SCOPES] : [...new Set(granted)];
}

// Stored in better-auth's api-key `permissions` column as { resource: [action] }.
export function scopesToPermissions(scopes: readonly Scope[]): Record<string, string[]> {
  const permissions: Record<string, string[]> = {};
  for (const scope of new Set(scopes)) {
    const [resource, action = "all"] = scope.split(":") as [string, string?];
    permissions[resource] = [...(permissions[resource] ?? []), action];
  }
  return permissions;
}

export function permissionsToScopes(permissions: unknown): Scope[] {
  if (typeof permissions !== "object" || permissions === null) return [];
  const scopes: Scope[] = [];
  for (const [resource, actions] of Object.entries(permissions)) {
    if (!Array.isArray(actions)) continue;
    for (const action of actions) {
      const scope = action === "all" ? resource : `${resource}:${String(action)}`;
      if ((SCOPES as readonly string[]).includes(scope)) scopes.push(scope as Scope);
    }
  }
  return scopes;
}
