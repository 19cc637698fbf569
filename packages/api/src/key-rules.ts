/**
 * API keys' resource rules for a process outside the control plane (`@lastword/api/key-rules`: the
 * workers' Kafka ACL APIs): the REST API's own service, so a rule written over Kafka passes the same
 * checks, is audited the same way and is read back by both paths.
 */

export {
  type KeyRule,
  keyRuleSchema,
  type PatternType,
  type ResourceType,
  type RuleOperation,
} from "./auth/resource-rules";
export {
  addApiKeyRules,
  listTenantRules,
  type RuleFilter,
  removeApiKeyRules,
  type TenantRule,
} from "./services/key-rules.service";
