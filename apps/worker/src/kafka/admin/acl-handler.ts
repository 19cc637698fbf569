import type { KeyRule, ResourceType, RuleOperation } from "@lastword/api/key-rules";
import {
  addApiKeyRules,
  keyRuleSchema,
  listTenantRules,
  type RuleFilter,
  removeApiKeyRules,
  type TenantRule,
} from "@lastword/api/key-rules";
import { AppError, apiKeyIdentity } from "@lastword/api/topic-admin";
import { ErrorCode, type RequestBody } from "@lastword/kafka-protocol";
import { refusal, refusedCode } from "../kafka-authorization";
import type { KafkaBrokerContext, KafkaHandler, KafkaSession } from "../kafka-context";
import { adminErrorOf } from "./admin-errors";

/**
 * DescribeAcls, CreateAcls and DeleteAcls over API keys' resource rules (auth/resource-rules.ts in
 * the api package), the same rows the REST API's `PUT /api-keys/{id}/rules` writes and both paths
 * enforce. A binding is an ALLOW for `User:<key id>` on any host (`*`); a rule's operation is READ,
 * WRITE or ALL (admin: every act, as Kafka's ALL); its resource a TOPIC or GROUP, LITERAL or
 * PREFIXED. Only principals of the caller's tenant are read or written: another tenant's key is
 * exactly an unknown one. What this model cannot hold (DENY, a host, another operation or resource
 * type) is refused with INVALID_REQUEST naming why, and changes nothing.
 */

// Kafka's enums (org.apache.kafka.common.resource / acl), by their wire codes.
const RESOURCE = { ANY: 1, TOPIC: 2, GROUP: 3 } as const;
const PATTERN = { ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
const OPERATION = { ANY: 1, ALL: 2, READ: 3, WRITE: 4 } as const;
const PERMISSION = { ANY: 1, ALLOW: 3 } as const;
const ANY_HOST = "*";
const USER = "User:";

const RESOURCE_OF: Record<number, ResourceType> = { [RESOURCE.TOPIC]: "topic", [RESOURCE.GROUP]: "group" };
const OPERATION_OF: Record<number, RuleOperation> = {
  [OPERATION.READ]: "read",
  [OPERATION.WRITE]: "write",
  [OPERATION.ALL]: "admin",
};
const RESOURCE_CODE = { topic: RESOURCE.TOPIC, group: RESOURCE.GROUP } as const;
const PATTERN_CODE = { literal: PATTERN.LITERAL, prefixed: PATTERN.PREFIXED } as const;
const OPERATION_CODE = { read: OPERATION.READ, write: OPERATION.WRITE, admin: OPERATION.ALL } as const;

const SUPPORTED =
  "Rules here are ALLOW bindings for User:<API key id> on host '*', on a TOPIC or GROUP (LITERAL or PREFIXED), for READ, WRITE or ALL";

class InvalidAcl extends Error {}

interface Binding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

function bindingOf(rule: TenantRule): Binding {
  return {
    resourceType: RESOURCE_CODE[rule.resourceType],
    resourceName: rule.name,
    patternType: PATTERN_CODE[rule.patternType],
    principal: `${USER}${rule.apiKeyId}`,
    host: ANY_HOST,
    operation: OPERATION_CODE[rule.operation],
    permissionType: PERMISSION.ALLOW,
  };
}

/** The key id a `User:<id>` principal names. */
function keyIdOf(principal: string): string {
  if (!principal.startsWith(USER) || principal.length === USER.length) {
    throw new InvalidAcl(`The principal "${principal}" is not User:<API key id>. ${SUPPORTED}.`);
  }
  return principal.slice(USER.length);
}

/** A CreateAcls creation as a rule of a key, or InvalidAcl saying what this model cannot hold. */
function ruleOf(creation: Binding): { keyId: string; rule: KeyRule } {
  const resourceType = RESOURCE_OF[creation.resourceType];
  const operation = OPERATION_OF[creation.operation];
  const patternType =
    creation.patternType === PATTERN.LITERAL
      ? "literal"
      : creation.patternType === PATTERN.PREFIXED
        ? "prefixed"
        : undefined;
  if (creation.permissionType !== PERMISSION.ALLOW)
    throw new InvalidAcl(`Only ALLOW bindings exist here. ${SUPPORTED}.`);
  if (creation.host !== ANY_HOST) throw new InvalidAcl(`Bindings apply to every host ('*'). ${SUPPORTED}.`);
  if (!resourceType || !operation || !patternType) throw new InvalidAcl(`${SUPPORTED}.`);
  const keyId = keyIdOf(creation.principal);
  const parsed = keyRuleSchema.safeParse({
    resourceType,
    patternType,
    name: creation.resourceName,
    operation,
  });
  if (!parsed.success) {
    throw new InvalidAcl(
      `The resource name "${creation.resourceName}" ${parsed.error.issues[0]?.message ?? "is invalid"}.`,
    );
  }
  return { keyId, rule: parsed.data };
}

type Filter = Omit<Binding, "resourceName" | "principal" | "host"> & {
  resourceName: string | null;
  principal: string | null;
  host: string | null;
};

/** Which rules a DescribeAcls/DeleteAcls filter matches, as Kafka's AclBindingFilter does. */
function filterOf(filter: Filter): RuleFilter {
  const anyOr = <T>(code: number, any: number, table: Record<number, T>): T | null | undefined =>
    code === any ? null : table[code];
  const type = anyOr(filter.resourceType, RESOURCE.ANY, RESOURCE_OF);
  const operation = anyOr(filter.operation, OPERATION.ANY, OPERATION_OF);
  // A resource type or operation Kafka has and rules here never hold (CLUSTER, DESCRIBE, …) matches nothing.
  if (type === undefined && filter.resourceType > RESOURCE.GROUP) return () => false;
  if (operation === undefined && filter.operation > OPERATION.ANY) return () => false;
  if (type === undefined || operation === undefined || filter.patternType < PATTERN.ANY) {
    throw new InvalidAcl(`The filter names an unknown resource type, pattern or operation. ${SUPPORTED}.`);
  }
  if (filter.permissionType !== PERMISSION.ANY && filter.permissionType !== PERMISSION.ALLOW)
    return () => false;
  if (filter.host !== null && filter.host !== ANY_HOST) return () => false;
  const keyId = filter.principal === null ? null : keyIdOf(filter.principal);
  const name = filter.resourceName;
  return (rule) =>
    (type === null || rule.resourceType === type) &&
    (operation === null || rule.operation === operation) &&
    (keyId === null || rule.apiKeyId === keyId) &&
    patternMatches(filter.patternType, name, rule);
}

function patternMatches(pattern: number, name: string | null, rule: TenantRule): boolean {
  if (pattern === PATTERN.ANY) return name === null || rule.name === name;
  if (pattern === PATTERN.MATCH) {
    // Every rule that applies to the resource `name`: its literal, the wildcard, its prefixes.
    if (name === null) return true;
    return rule.patternType === "prefixed"
      ? name.startsWith(rule.name)
      : rule.name === name || rule.name === "*";
  }
  const type = pattern === PATTERN.LITERAL ? "literal" : pattern === PATTERN.PREFIXED ? "prefixed" : null;
  return rule.patternType === type && (name === null || rule.name === name);
}

interface Outcome {
  errorCode: number;
  errorMessage: string | null;
}

/** The Kafka outcome of a refused ACL change: its own code for a bad binding, else the service's. */
function outcomeOf(error: unknown): Outcome {
  if (error instanceof InvalidAcl)
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: error.message };
  if (error instanceof AppError && error.code === "INSUFFICIENT_SCOPE")
    return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: error.message };
  if (error instanceof AppError && error.code === "API_KEY_NOT_FOUND")
    return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `${error.message} ${SUPPORTED}.` };
  return adminErrorOf(error, () => ErrorCode.INVALID_REQUEST);
}

function deps(ctx: KafkaBrokerContext) {
  return { prisma: ctx.prisma, clock: ctx.clock };
}

function refusedAcl(session: KafkaSession, act: "DescribeAcls" | "CreateAcls" | "DeleteAcls") {
  const refused = refusal(session, act);
  return refused ? { errorCode: refusedCode(act), errorMessage: refused.message } : null;
}

export const handleDescribeAcls: KafkaHandler<29> = async (ctx, session, request) => {
  const answer = (outcome: Outcome) => ({ throttleTimeMs: 0, ...outcome, resources: [] });
  const refused = refusedAcl(session, "DescribeAcls");
  if (refused) return answer(refused);
  try {
    const rules = await listTenantRules(
      deps(ctx),
      apiKeyIdentity(session.principal),
      filterOf(filterFields(request)),
    );
    const byResource = new Map<
      string,
      Pick<Binding, "resourceType" | "resourceName" | "patternType"> & {
        acls: Pick<Binding, "principal" | "host" | "operation" | "permissionType">[];
      }
    >();
    for (const binding of rules.map(bindingOf)) {
      const id = `${binding.resourceType}\u0000${binding.patternType}\u0000${binding.resourceName}`;
      const resource = byResource.get(id) ?? {
        resourceType: binding.resourceType,
        resourceName: binding.resourceName,
        patternType: binding.patternType,
        acls: [],
      };
      resource.acls.push({
        principal: binding.principal,
        host: binding.host,
        operation: binding.operation,
        permissionType: binding.permissionType,
      });
      byResource.set(id, resource);
    }
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, resources: [...byResource.values()] };
  } catch (error) {
    return answer(outcomeOf(error));
  }
};

/** One creation at a time, in order, each audited: a refused one changes nothing and the rest go on. */
export const handleCreateAcls: KafkaHandler<30> = async (ctx, session, request) => {
  const refused = refusedAcl(session, "CreateAcls");
  const identity = apiKeyIdentity(session.principal);
  const results: Outcome[] = [];
  for (const creation of request.creations) {
    if (refused) {
      results.push(refused);
      continue;
    }
    try {
      const { keyId, rule } = ruleOf({ ...creation, patternType: creation.resourcePatternType });
      await addApiKeyRules(deps(ctx), identity, keyId, [rule]);
      results.push({ errorCode: 0, errorMessage: null });
    } catch (error) {
      results.push(outcomeOf(error));
    }
  }
  return { throttleTimeMs: 0, results };
};

/** Each filter removes every rule it matches in the caller's tenant, and answers them. */
export const handleDeleteAcls: KafkaHandler<31> = async (ctx, session, request) => {
  const refused = refusedAcl(session, "DeleteAcls");
  const identity = apiKeyIdentity(session.principal);
  const filterResults: (Outcome & { matchingAcls: (Outcome & Binding)[] })[] = [];
  for (const filter of request.filters) {
    if (refused) {
      filterResults.push({ ...refused, matchingAcls: [] });
      continue;
    }
    try {
      const removed = await removeApiKeyRules(deps(ctx), identity, filterOf(filterFields(filter)));
      filterResults.push({
        errorCode: 0,
        errorMessage: null,
        matchingAcls: removed.map((rule) => ({ errorCode: 0, errorMessage: null, ...bindingOf(rule) })),
      });
    } catch (error) {
      filterResults.push({ ...outcomeOf(error), matchingAcls: [] });
    }
  }
  return { throttleTimeMs: 0, filterResults };
};

/** A DescribeAcls request and a DeleteAcls filter carry the same filter fields. */
function filterFields(filter: RequestBody<31>["filters"][number] | RequestBody<29>): Filter {
  return {
    resourceType: filter.resourceTypeFilter,
    resourceName: filter.resourceNameFilter,
    patternType: filter.patternTypeFilter,
    principal: filter.principalFilter,
    host: filter.hostFilter,
    operation: filter.operation,
    permissionType: filter.permissionType,
  };
}
