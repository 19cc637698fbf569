import { createHash } from "node:crypto";

export { STALE_IF_UNREACHABLE_MS } from "../cache/lookup-cache";
// What a process outside the control plane (the Kafka listener in the workers) needs to check an
// API key the way the REST API does: how its secret is stored, and what its permissions grant.
export { isDatabaseUnreachable, someDatabaseCause } from "../errors/database-unavailable";
export {
  type Act,
  type ActRefusal,
  type ActResource,
  actRefusal,
  effectiveScopes,
  type Grantee,
  type KeyLimits,
  mayAct,
} from "./act-authorization";
export {
  type KeyRule,
  type PatternType,
  type ResourceOperation,
  type ResourceType,
  type RuleOperation,
  toKeyRule,
} from "./resource-rules";
export {
  DEFAULT_API_KEY_SCOPES,
  hasScope,
  isRole,
  permissionsToScopes,
  type Role,
  type Scope,
  scopesToPermissions,
} from "./scopes";

/**
 * How the key plugin stores a key (its `defaultKeyHasher`: SHA-256, base64url without padding),
 * computed synchronously: its Web Crypto digest costs ~0.3 ms of CPU per request for 40 bytes.
 */
export function hashApiKey(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

/**
 * A key's "last used" is kept to the minute, by the REST API and the Kafka listener alike, so a
 * busy key writes its row once a minute, not per request.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;
