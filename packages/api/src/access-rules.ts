/**
 * The access rules a browser may import (`@lastword/api/access-rules`): every scope the API
 * defines, the roles' scopes, a new key's default and the grant rule, so the console offers
 * exactly what the API would grant instead of a copy. Nothing here reaches Node, Prisma or Redis.
 */

export { canGrant, type Granter } from "./auth/grant-rule";
export {
  describeRule,
  type KeyRule,
  keyRuleSchema,
  MAX_RULES_PER_KEY,
  PATTERN_TYPES,
  type PatternType,
  RESOURCE_TYPES,
  type ResourceType,
  RULE_OPERATIONS,
  type RuleOperation,
  WILDCARD,
} from "./auth/resource-rules";
export {
  DEFAULT_API_KEY_SCOPES,
  isRole,
  ROLES,
  type Role,
  SCOPES,
  type Scope,
  scopesOfRole,
} from "./auth/scopes";
