import {
  alterConfigsInput,
  alterTopicConfigs,
  apiKeyIdentity,
  describeConfigs,
  findTopic,
  parseAdminInput,
  storedConfigs,
} from "@lastword/api/topic-admin";
import { AlterConfigOp, ConfigResourceType, ErrorCode, type ResponseInput } from "@lastword/kafka-protocol";
import type { KafkaBrokerContext, KafkaHandler, KafkaSession } from "../kafka-context";
import { readableTopic, viewWriteRefusal } from "../latest-view";
import { type AdminOutcome, actRefused, adminErrorOf, OK, topicOr } from "./admin-errors";
import {
  CONFIG_SOURCE,
  configTypeOf,
  defaultSynonymName,
  effectiveValue,
  isListConfig,
} from "./config-entries";

type DescribedResource = NonNullable<ResponseInput<32>["results"]>[number];
type AlterConfigsResponse = ResponseInput<33>;
type AlteredResource = NonNullable<AlterConfigsResponse["responses"]>[number];

const { TOPIC, BROKER } = ConfigResourceType;
const { SET, DELETE, APPEND, SUBTRACT } = AlterConfigOp;

const BROKER_CONFIGS_REFUSED = "Broker configs are the service's own; only topic configs can be changed.";
const ONLY_TOPICS = "Only topic (2) and broker (4) config resources exist here.";
const alterInputCode = topicOr(ErrorCode.INVALID_CONFIG);

/**
 * DescribeConfigs v1–v4 over the REST API's config model: every topic config with its value,
 * source (TOPIC_CONFIG 1 when set, DEFAULT_CONFIG 5 otherwise), synonyms (the override, then the
 * default under its broker-level name, `log.cleanup.policy` for `cleanup.policy`) and, from v3, type and documentation. A broker resource is described as empty: the
 * fleet's settings are not a tenant's to see. A `.latest` view has its topic's configs, read-only.
 */
export const handleDescribeConfigs: KafkaHandler<32> = async (ctx, session, request) => {
  const { tenantId } = session.principal;
  const results = await Promise.all(
    request.resources.map(async (resource): Promise<DescribedResource> => {
      const base = { resourceType: resource.resourceType, resourceName: resource.resourceName, configs: [] };
      if (resource.resourceType === BROKER) return { ...base, ...OK };
      const refused =
        notTopic(resource.resourceType) ?? actRefused(session, "DescribeConfigs", resource.resourceName);
      if (refused) return { ...base, ...refused };
      try {
        // A view is described as its topic (read-only: changes are refused, see alterResources).
        const found = await readableTopic(ctx.catalog, tenantId, resource.resourceName);
        const name = found?.view ? found.topic.name : resource.resourceName;
        const topic = await findTopic(ctx.prisma, tenantId, name);
        const readOnly = found?.view === true;
        const wanted = resource.configurationKeys === null ? null : new Set(resource.configurationKeys);
        const entries = describeConfigs(storedConfigs(topic.configs)).filter(
          (e) => wanted === null || wanted.has(e.name),
        );
        const configs = entries.map((entry) => ({
          name: entry.name,
          value: entry.value,
          readOnly,
          isDefault: entry.source === "default",
          configSource: CONFIG_SOURCE[entry.source],
          isSensitive: false,
          synonyms: request.includeSynonyms
            ? [
                ...(entry.source === "set"
                  ? [{ name: entry.name, value: entry.value, source: CONFIG_SOURCE.set }]
                  : []),
                { name: defaultSynonymName(entry.name), value: entry.default, source: CONFIG_SOURCE.default },
              ]
            : [],
          configType: configTypeOf(entry.name),
          documentation: request.includeDocumentation ? entry.doc : null,
        }));
        return { ...base, ...OK, configs };
      } catch (error) {
        return { ...base, ...adminErrorOf(error, alterInputCode) };
      }
    }),
  );
  return { throttleTimeMs: 0, results };
};

/** Why a resource that is not a topic (nor a broker, which each handler answers itself) is refused. */
function notTopic(resourceType: number): AdminOutcome | null {
  return resourceType === TOPIC ? null : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: ONLY_TOPICS };
}

/** A topic's next explicit configs from a resource's entries and its current ones, or why not. */
type NextConfigs<R> = (
  resource: R,
  current: Readonly<Record<string, string>>,
) => { set: Record<string, string> } | { refused: AdminOutcome };

interface ConfigResource {
  resourceType: number;
  resourceName: string;
  configs: readonly { name: string }[];
}

async function alterResources<R extends ConfigResource>(
  ctx: KafkaBrokerContext,
  session: KafkaSession,
  request: { resources: readonly R[]; validateOnly: boolean },
  nextConfigs: NextConfigs<R>,
): Promise<AlterConfigsResponse> {
  const identity = apiKeyIdentity(session.principal);
  const { validateOnly } = request;
  const responses: AlteredResource[] = [];
  for (const resource of request.resources) {
    const answer = (outcome: AdminOutcome): AlteredResource => ({
      resourceType: resource.resourceType,
      resourceName: resource.resourceName,
      ...outcome,
    });
    const refused =
      resource.resourceType === BROKER
        ? { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: BROKER_CONFIGS_REFUSED }
        : (notTopic(resource.resourceType) ??
          actRefused(session, "AlterConfigs", resource.resourceName) ??
          (await viewWriteRefusal(ctx.catalog, identity.tenantId, resource.resourceName)) ??
          twiceNamed(resource.configs));
    if (refused) {
      responses.push(answer(refused));
      continue;
    }
    try {
      const topic = await findTopic(ctx.prisma, identity.tenantId, resource.resourceName);
      const current = storedConfigs(topic.configs);
      const next = nextConfigs(resource, current);
      if ("refused" in next) {
        responses.push(answer(next.refused));
        continue;
      }
      const { set } = next;
      const reset = Object.keys(current).filter((name) => !(name in set));
      await alterTopicConfigs(
        { prisma: ctx.prisma, clock: ctx.clock },
        identity,
        parseAdminInput(alterConfigsInput, { topic: topic.name, set, reset, validateOnly }),
      );
      responses.push(answer(OK));
    } catch (error) {
      responses.push(answer(adminErrorOf(error, alterInputCode)));
    }
  }
  if (!validateOnly) ctx.catalog.invalidate();
  return { throttleTimeMs: 0, responses };
}

function twiceNamed(configs: readonly { name: string }[]): AdminOutcome | null {
  const seen = new Set<string>();
  for (const { name } of configs) {
    if (seen.has(name)) {
      return { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Config "${name}" is given twice.` };
    }
    seen.add(name);
  }
  return null;
}

/**
 * AlterConfigs v0–v2, Kafka's non-incremental form: the request is the topic's complete new set of
 * overrides, and whatever it leaves out returns to its default. Validated and audited as the REST
 * API's config change (a compacted topic may not drop `compact`: POLICY_VIOLATION).
 */
export const handleAlterConfigs: KafkaHandler<33> = (ctx, session, request) =>
  alterResources(ctx, session, request, (resource) => {
    const set: Record<string, string> = {};
    // A null value is the same as leaving the config out: back to its default.
    for (const { name, value } of resource.configs) if (value !== null) set[name] = value;
    return { set };
  });

function listItems(value: string | null): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** One IncrementalAlterConfigs operation applied to `next`, or why it cannot be. */
function applyOperation(
  next: Record<string, string>,
  op: { name: string; configOperation: number; value: string | null },
): AdminOutcome | null {
  const { name, configOperation, value } = op;
  if (configOperation === DELETE) {
    delete next[name];
    return null;
  }
  if (configOperation !== SET && configOperation !== APPEND && configOperation !== SUBTRACT) {
    return {
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: `Unknown config operation ${configOperation}.`,
    };
  }
  if (value === null) {
    return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: `Config "${name}" has no value.` };
  }
  if (configOperation === SET) {
    next[name] = value;
    return null;
  }
  if (!isListConfig(name)) {
    return {
      errorCode: ErrorCode.INVALID_CONFIG,
      errorMessage: `Config "${name}" is not a list; APPEND and SUBTRACT apply only to list configs.`,
    };
  }
  const items = listItems(effectiveValue(next, name));
  const given = listItems(value);
  const result =
    configOperation === APPEND
      ? [...items, ...given.filter((item) => !items.includes(item))]
      : items.filter((item) => !given.includes(item));
  next[name] = result.join(",");
  return null;
}

/**
 * IncrementalAlterConfigs v0–v1: SET, DELETE (back to the default), APPEND and SUBTRACT (list
 * configs, from the effective value) applied in order to the topic's current overrides, then
 * validated and audited as one REST config change.
 */
export const handleIncrementalAlterConfigs: KafkaHandler<44> = (ctx, session, request) =>
  alterResources(ctx, session, request, (resource, current) => {
    const set = { ...current };
    for (const op of resource.configs) {
      const failed = applyOperation(set, op);
      if (failed) return { refused: failed };
    }
    return { set };
  });
