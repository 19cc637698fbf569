import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { createApiKeyProcedure } from "../procedures/api-keys/create-api-key";
import { listApiKeysProcedure } from "../procedures/api-keys/list-api-keys";
import { revokeApiKeyProcedure } from "../procedures/api-keys/revoke-api-key";
import { setApiKeyRulesProcedure } from "../procedures/api-keys/set-api-key-rules";
import { exportAuditProcedure } from "../procedures/audit/export-audit";
import { listAuditProcedure } from "../procedures/audit/list-audit";
import { verifyAuditProcedure } from "../procedures/audit/verify-audit";
import { commitOffsetsProcedure } from "../procedures/consumer-groups/commit-offsets";
import { deleteGroupProcedure } from "../procedures/consumer-groups/delete-group";
import { getGroupProcedure } from "../procedures/consumer-groups/get-group";
import { groupLagProcedure } from "../procedures/consumer-groups/group-lag";
import { groupLagHistoryProcedure } from "../procedures/consumer-groups/group-lag-history";
import { listGroupsProcedure } from "../procedures/consumer-groups/list-groups";
import { listTopicGroupsProcedure } from "../procedures/consumer-groups/list-topic-groups";
import { resetOffsetsProcedure } from "../procedures/consumer-groups/reset-offsets";
import { createErasureRequestProcedure } from "../procedures/erasure/create-erasure-request";
import { erasureTopicsProcedure } from "../procedures/erasure/erasure-topics";
import { exportErasureEvidenceProcedure } from "../procedures/erasure/export-erasure-evidence";
import { extendErasureDeadlineProcedure } from "../procedures/erasure/extend-erasure-deadline";
import { getErasureRequestProcedure } from "../procedures/erasure/get-erasure-request";
import { listErasureRequestsProcedure } from "../procedures/erasure/list-erasure-requests";
import { previewErasureProcedure } from "../procedures/erasure/preview-erasure";
import { reverifyErasureRequestProcedure } from "../procedures/erasure/reverify-erasure-request";
import { acceptInvitationProcedure } from "../procedures/invitations/accept-invitation";
import { declineInvitationProcedure } from "../procedures/invitations/decline-invitation";
import { kafkaConnectionProcedure } from "../procedures/kafka/kafka-connection";
import { getKeyProcedure } from "../procedures/keys/get-key";
import { keyVersionsProcedure } from "../procedures/keys/key-versions";
import { changeMemberRoleProcedure } from "../procedures/members/change-member-role";
import { inviteMemberProcedure } from "../procedures/members/invite-member";
import { listMembersProcedure } from "../procedures/members/list-members";
import { removeMemberProcedure } from "../procedures/members/remove-member";
import { revokeInvitationProcedure } from "../procedures/members/revoke-invitation";
import { deleteKeyProcedure } from "../procedures/records/delete-key";
import { deleteRecordsProcedure } from "../procedures/records/delete-records";
import { listOffsetsProcedure } from "../procedures/records/list-offsets";
import { produceRecordsProcedure } from "../procedures/records/produce-records";
import { readRecordsProcedure } from "../procedures/records/read-records";
import { searchRecordsProcedure } from "../procedures/records/search-records";
import { checkSchemaProcedure } from "../procedures/schemas/check-schema";
import { deleteSchemaProcedure } from "../procedures/schemas/delete-schema";
import { encodeValueProcedure } from "../procedures/schemas/encode-value";
import { getSubjectProcedure } from "../procedures/schemas/get-subject";
import { listSubjectsProcedure } from "../procedures/schemas/list-subjects";
import { registerSchemaProcedure } from "../procedures/schemas/register-schema";
import { setCompatibilityProcedure } from "../procedures/schemas/set-compatibility";
import { topicSubjectsProcedure } from "../procedures/schemas/topic-subjects";
import { currentTenantProcedure } from "../procedures/tenant/current-tenant";
import { tenantUsageProcedure } from "../procedures/tenant/tenant-usage";
import { addPartitionsProcedure } from "../procedures/topics/add-partitions";
import { alterConfigsProcedure } from "../procedures/topics/alter-configs";
import { configHistoryProcedure } from "../procedures/topics/config-history";
import { createTopicProcedure } from "../procedures/topics/create-topic";
import { deleteTopicProcedure } from "../procedures/topics/delete-topic";
import { getTopicProcedure } from "../procedures/topics/get-topic";
import { kafkaClientsProcedure } from "../procedures/topics/kafka-clients";
import { listCleanerRunsProcedure } from "../procedures/topics/list-cleaner-runs";
import { listTopicsProcedure } from "../procedures/topics/list-topics";
import { partitionSegmentsProcedure } from "../procedures/topics/partition-segments";
import { requestCleanProcedure } from "../procedures/topics/request-clean";
import { topicDurabilityProcedure } from "../procedures/topics/topic-durability";
import { topicHistoryProcedure } from "../procedures/topics/topic-history";
import { abortTransactionProcedure } from "../procedures/transactions/abort-transaction";
import { listTransactionsProcedure } from "../procedures/transactions/list-transactions";
import { router } from "./trpc";

export const appRouter = router({
  tenant: router({
    current: currentTenantProcedure,
    usage: tenantUsageProcedure,
  }),
  topics: router({
    create: createTopicProcedure,
    list: listTopicsProcedure,
    get: getTopicProcedure,
    delete: deleteTopicProcedure,
    alterConfigs: alterConfigsProcedure,
    configHistory: configHistoryProcedure,
    addPartitions: addPartitionsProcedure,
    cleanerRuns: listCleanerRunsProcedure,
    kafkaClients: kafkaClientsProcedure,
    segments: partitionSegmentsProcedure,
    requestClean: requestCleanProcedure,
    history: topicHistoryProcedure,
    durability: topicDurabilityProcedure,
  }),
  kafka: router({
    connection: kafkaConnectionProcedure,
  }),
  apiKeys: router({
    create: createApiKeyProcedure,
    list: listApiKeysProcedure,
    revoke: revokeApiKeyProcedure,
    setRules: setApiKeyRulesProcedure,
  }),
  members: router({
    list: listMembersProcedure,
    invite: inviteMemberProcedure,
    changeRole: changeMemberRoleProcedure,
    remove: removeMemberProcedure,
    revokeInvitation: revokeInvitationProcedure,
  }),
  invitations: router({
    accept: acceptInvitationProcedure,
    decline: declineInvitationProcedure,
  }),
  consumerGroups: router({
    commitOffsets: commitOffsetsProcedure,
    get: getGroupProcedure,
    lag: groupLagProcedure,
    lagHistory: groupLagHistoryProcedure,
    reset: resetOffsetsProcedure,
    listForTopic: listTopicGroupsProcedure,
    list: listGroupsProcedure,
    delete: deleteGroupProcedure,
  }),
  transactions: router({
    list: listTransactionsProcedure,
    abort: abortTransactionProcedure,
  }),
  records: router({
    produce: produceRecordsProcedure,
    read: readRecordsProcedure,
    search: searchRecordsProcedure,
    deleteKey: deleteKeyProcedure,
    deleteRecords: deleteRecordsProcedure,
    offsets: listOffsetsProcedure,
  }),
  keys: router({
    get: getKeyProcedure,
    versions: keyVersionsProcedure,
  }),
  erasure: router({
    create: createErasureRequestProcedure,
    list: listErasureRequestsProcedure,
    get: getErasureRequestProcedure,
    extend: extendErasureDeadlineProcedure,
    reverify: reverifyErasureRequestProcedure,
    evidence: exportErasureEvidenceProcedure,
    preflight: previewErasureProcedure,
    topics: erasureTopicsProcedure,
  }),
  // The schema registry for the console (programs use /schema-registry, Confluent's API).
  schemas: router({
    subjects: listSubjectsProcedure,
    subject: getSubjectProcedure,
    check: checkSchemaProcedure,
    register: registerSchemaProcedure,
    setCompatibility: setCompatibilityProcedure,
    delete: deleteSchemaProcedure,
    forTopic: topicSubjectsProcedure,
    encode: encodeValueProcedure,
  }),
  audit: router({
    list: listAuditProcedure,
    verify: verifyAuditProcedure,
    export: exportAuditProcedure,
  }),
});

export type AppRouter = typeof appRouter;

/** What each procedure accepts (before defaults) and returns; the typed REST client uses these. */
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
