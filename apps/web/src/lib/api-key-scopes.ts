import { canGrant, DEFAULT_API_KEY_SCOPES, isRole, SCOPES, type Scope } from "@lastword/api/access-rules";

// What each scope allows, in words. Typed by the API's scope list, so a scope the API adds does
// not compile here until the console can offer it.
const SCOPE_LABELS: Record<Scope, string> = {
  "topics:read": "Read topics and their configs",
  "topics:write": "Create, change and delete topics",
  "records:read": "Read records",
  "records:write": "Produce records and tombstones",
  "groups:read": "Read consumer groups; consume in a Kafka group",
  "groups:write": "Commit, reset and delete consumer-group offsets",
  "keys:read": "List API keys",
  "keys:write": "Create and revoke API keys",
  "members:read": "List members and invitations",
  "members:write": "Invite members, change roles, remove members",
  "erasure:read": "Read erasure requests and the audit trail",
  "erasure:write": "File and extend erasure requests",
  "schemas:read": "Read schema-registry subjects, schemas and configs",
  "schemas:write": "Register and delete schemas; set compatibility and modes",
  admin: "Everything, including what later scopes add",
};

export type ApiKeyScope = Scope;

export interface ScopeOption {
  scope: Scope;
  label: string;
  /** Reads are ticked for a new key; every write is opted into. */
  byDefault: boolean;
}

/** Every scope the API defines, in the API's order. */
export const API_KEY_SCOPES: readonly ScopeOption[] = SCOPES.map((scope) => ({
  scope,
  label: SCOPE_LABELS[scope],
  byDefault: DEFAULT_API_KEY_SCOPES.includes(scope),
}));

/**
 * Whether a member with `role` may put `scope` on a key: the API's grant rule (never above the
 * creator's own), asked here so the form offers exactly what the API accepts.
 */
export function grantableBy(role: string | null, scopes: readonly string[], scope: Scope): boolean {
  if (role === null || !isRole(role)) return false;
  const held = scopes.filter((entry): entry is Scope => (SCOPES as readonly string[]).includes(entry));
  return canGrant({ role, scopes: held }, { scopes: [scope] });
}

/** The read-only default, narrowed to what the creator may grant. */
export function defaultScopesFor(role: string | null, scopes: readonly string[]): Scope[] {
  return API_KEY_SCOPES.filter((entry) => entry.byDefault && grantableBy(role, scopes, entry.scope)).map(
    (entry) => entry.scope,
  );
}
