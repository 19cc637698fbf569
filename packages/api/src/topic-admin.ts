import type { z } from "zod";
import type { Grantee } from "./auth/act-authorization";
import type { Identity } from "./auth/request-identity";
import { AppError } from "./errors/app-error";
import { inputDetail, issuePath } from "./errors/input-issues";

/**
 * The topic administration a process outside the control plane serves (`@lastword/api/topic-admin`,
 * the workers' Kafka admin APIs): the REST API's own input schemas and services, so a topic made
 * or changed over Kafka passes the same rules and is refused with the same messages. Nothing here
 * reaches tRPC.
 */

export type { Identity } from "./auth/request-identity";
export { AppError, type AppErrorCode } from "./errors/app-error";
export { addPartitionsInput } from "./procedures/topics/add-partitions.schema";
export { LATEST_VIEW_SUFFIX, latestViewBase } from "./records/latest-view-name";
export { alterConfigsInput } from "./services/alter-configs.schema";
export { createTopicInput, MAX_PARTITIONS_PER_TOPIC } from "./services/create-topic.schema";
export { deleteRecordsInput } from "./services/delete-records.schema";
export { deleteRecordsBefore } from "./services/delete-records.service";
/** How far back the console lists a topic's Kafka clients: older sightings may be pruned. */
export { RECENT_CLIENTS_MS } from "./services/kafka-clients.service";
export { assertNotProtected, isProtectedTopic, SCHEMA_REGISTRY_TOPIC } from "./services/protected-topics";
export { topicNameSchema } from "./services/topic.schema";
export { createTopic, deleteTopic, findTopic, topicSummary } from "./services/topic.service";
export { addPartitions, alterTopicConfigs } from "./services/topic-admin.service";
export { type ConfigEntry, describeConfigs, isCompacted, storedConfigs } from "./services/topic-config";
export { reportedSizeBytes } from "./services/topic-usage";

/**
 * Who an API key acts as outside an HTTP request: its tenant, its effective scopes and its limits
 * (creator's role, rules), audited as the key.
 */
export function apiKeyIdentity(principal: { keyId: string; tenantId: string; grant: Grantee }): Identity {
  return {
    tenantId: principal.tenantId,
    actor: { type: "apiKey", id: principal.keyId },
    role: null,
    scopes: [...principal.grant.scopes],
    userId: null,
    ...(principal.grant.key ? { key: principal.grant.key } : {}),
  };
}

/**
 * `input` checked against a REST input schema; a refusal is INVALID_INPUT with the REST API's
 * detail, and `details.path` says which field failed (Kafka picks its error code by it).
 */
export function parseAdminInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues;
  throw new AppError("INVALID_INPUT", inputDetail(issues), {
    details: { path: issues[0] ? issuePath(issues[0].path) : "" },
  });
}
