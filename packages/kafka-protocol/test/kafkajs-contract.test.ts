import { describe, expect, it } from "vitest";
import { ApiKey, decodeRequest, encodeRequest, encodeResponse } from "../src";
import {
  CLIENT_ID,
  CORRELATION_ID,
  kafkajsDecodeBatch,
  kafkajsParseResponse,
  kafkajsRecordBatch,
  kafkajsRequestFrame,
} from "./kafkajs-harness";

/*
 * (a) Contract tests against kafkajs 2.2.4's own codecs, for every API and version it uses
 * (shared/reference/kafka-protocol.md §1.2). Requests: kafkajs encodes the frame
 * (src/protocol/request.js + requests/<api>/v<N>/request.js), we decode it, compare fields, and
 * re-encode to the identical bytes. Responses: we encode, kafkajs runs requests/<api>/v<N>/response.js
 * `decode` then `parse`, and the parsed object must hold our values.
 */

interface Contract {
  /** kafkajs's folder under src/protocol/requests. */
  api: string;
  apiKey: ApiKey;
  versions: readonly number[];
  args: (v: number) => unknown;
  /** Fields our decoder must produce from kafkajs's request (a subset of the body). */
  request: (v: number) => object;
  response: (v: number) => object;
  /** What kafkajs's `parse` must return for our response (a subset). */
  parsed: (v: number) => object;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** kafkajs reports throttle_time_ms as `throttleTime` until KIP-219, then as `clientSideThrottleTime`. */
function throttle(v: number, since: number, clientSideFrom: number, ms: number): object {
  if (v < since) return {};
  return v >= clientSideFrom ? { throttleTime: 0, clientSideThrottleTime: ms } : { throttleTime: ms };
}

const broker = { nodeId: 1, host: "broker-1.lastword.test", port: 9092, rack: "rack-a" };

const contracts: Contract[] = [
  {
    api: "apiVersions",
    apiKey: ApiKey.ApiVersions,
    versions: range(0, 2),
    args: () => undefined,
    request: () => ({}),
    response: () => ({
      errorCode: 0,
      apiKeys: [
        { apiKey: 0, minVersion: 3, maxVersion: 7 },
        { apiKey: 18, minVersion: 0, maxVersion: 3 },
      ],
      throttleTimeMs: 25,
    }),
    parsed: (v) => ({
      errorCode: 0,
      apiVersions: [
        { apiKey: 0, minVersion: 3, maxVersion: 7 },
        { apiKey: 18, minVersion: 0, maxVersion: 3 },
      ],
      ...throttle(v, 1, 2, 25),
    }),
  },
  {
    api: "saslHandshake",
    apiKey: ApiKey.SaslHandshake,
    versions: range(0, 1),
    args: () => ({ mechanism: "PLAIN" }),
    request: () => ({ mechanism: "PLAIN" }),
    response: () => ({ errorCode: 0, mechanisms: ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] }),
    parsed: () => ({ errorCode: 0, enabledMechanisms: ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] }),
  },
  {
    api: "saslAuthenticate",
    apiKey: ApiKey.SaslAuthenticate,
    versions: range(0, 1),
    // The mechanism's bytes arrive already length-prefixed (sasl/plain/request.js writeBytes), and
    // SaslAuthenticate writes them raw (saslAuthenticate/v0/request.js writeBuffer).
    args: () => ({ authBytes: Buffer.concat([Buffer.from([0, 0, 0, 14]), Buffer.from("\0key-id\0secret")]) }),
    request: () => ({ authBytes: Buffer.from("\0key-id\0secret") }),
    response: () => ({
      errorCode: 0,
      errorMessage: null,
      authBytes: Buffer.from("v=proof"),
      sessionLifetimeMs: 3_600_000n,
    }),
    parsed: (v) => ({
      errorCode: 0,
      errorMessage: null,
      // kafkajs re-wraps the bytes with their int32 length for the SASL mechanism code.
      authBytes: Buffer.concat([Buffer.from([0, 0, 0, 7]), Buffer.from("v=proof")]),
      ...(v >= 1 && { sessionLifetimeMs: "3600000" }),
    }),
  },
  {
    api: "metadata",
    apiKey: ApiKey.Metadata,
    versions: range(0, 6),
    args: () => ({ topics: ["orders", "users"], allowAutoTopicCreation: false }),
    request: (v) => ({ topics: [{ name: "orders" }, { name: "users" }], allowAutoTopicCreation: v < 4 }),
    response: () => ({
      throttleTimeMs: 10,
      brokers: [broker],
      clusterId: "lw-tenant-1",
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: "orders",
          isInternal: false,
          partitions: [
            {
              errorCode: 0,
              partitionIndex: 0,
              leaderId: 1,
              replicaNodes: [1],
              isrNodes: [1],
              offlineReplicas: [],
            },
            {
              errorCode: 0,
              partitionIndex: 1,
              leaderId: 1,
              replicaNodes: [1],
              isrNodes: [1],
              offlineReplicas: [],
            },
          ],
        },
      ],
    }),
    parsed: (v) => ({
      ...throttle(v, 3, 6, 10),
      brokers: [{ nodeId: 1, host: broker.host, port: 9092, ...(v >= 1 && { rack: "rack-a" }) }],
      ...(v >= 1 && { controllerId: 1 }),
      ...(v >= 2 && { clusterId: "lw-tenant-1" }),
      topicMetadata: [
        {
          topicErrorCode: 0,
          topic: "orders",
          ...(v >= 1 && { isInternal: false }),
          partitionMetadata: [0, 1].map((partitionId) => ({
            partitionErrorCode: 0,
            partitionId,
            leader: 1,
            replicas: [1],
            isr: [1],
            ...(v >= 5 && { offlineReplicas: [] }),
          })),
        },
      ],
    }),
  },
  {
    api: "produce",
    apiKey: ApiKey.Produce,
    versions: range(3, 7),
    args: () => ({
      acks: -1,
      timeout: 30_000,
      topicData: [
        {
          topic: "orders",
          partitions: [
            {
              partition: 2,
              firstSequence: 0,
              messages: [
                { key: "k1", value: "v1", timestamp: 1_700_000_000_000, headers: { h: "x" } },
                { key: "k2", value: null, timestamp: 1_700_000_000_001 },
              ],
            },
          ],
        },
      ],
    }),
    request: () => ({
      transactionalId: null,
      acks: -1,
      timeoutMs: 30_000,
      topicData: [{ name: "orders", partitionData: [{ index: 2, records: expect.any(Buffer) }] }],
    }),
    response: () => ({
      responses: [
        {
          name: "orders",
          partitionResponses: [
            { index: 2, errorCode: 0, baseOffset: 42n, logAppendTimeMs: -1n, logStartOffset: 0n },
          ],
        },
      ],
      throttleTimeMs: 5,
    }),
    parsed: (v) => ({
      topics: [
        {
          topicName: "orders",
          partitions: [
            {
              partition: 2,
              errorCode: 0,
              baseOffset: "42",
              logAppendTime: "-1",
              ...(v >= 5 && { logStartOffset: "0" }),
            },
          ],
        },
      ],
      ...throttle(v, 0, 6, 5),
    }),
  },
  {
    api: "fetch",
    apiKey: ApiKey.Fetch,
    versions: range(4, 11),
    args: () => ({
      replicaId: -1,
      isolationLevel: 1,
      maxWaitTime: 100,
      minBytes: 1,
      maxBytes: 10_485_760,
      topics: [{ topic: "orders", partitions: [{ partition: 0, fetchOffset: "5", maxBytes: 1_048_576 }] }],
    }),
    request: (v) => ({
      replicaId: -1,
      maxWaitMs: 100,
      minBytes: 1,
      maxBytes: 10_485_760,
      isolationLevel: 1,
      ...(v >= 7 && { sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [] }),
      topics: [
        { topic: "orders", partitions: [{ partition: 0, fetchOffset: 5n, partitionMaxBytes: 1_048_576 }] },
      ],
      ...(v >= 11 && { rackId: "" }),
    }),
    response: () => ({
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: "orders",
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 7n,
              lastStableOffset: 7n,
              logStartOffset: 0n,
              abortedTransactions: null,
              preferredReadReplica: -1,
              records: null,
            },
          ],
        },
      ],
    }),
    parsed: (v) => ({
      ...(v >= 7 && { errorCode: 0, sessionId: 0 }),
      responses: [
        {
          topicName: "orders",
          partitions: [
            {
              partition: 0,
              errorCode: 0,
              highWatermark: "7",
              lastStableOffset: "7",
              ...(v >= 5 && { lastStartOffset: "0" }),
              abortedTransactions: [],
              ...(v >= 11 && { preferredReadReplica: -1 }),
              messages: [],
            },
          ],
        },
      ],
    }),
  },
  {
    api: "listOffsets",
    apiKey: ApiKey.ListOffsets,
    versions: range(1, 3),
    args: () => ({
      replicaId: -1,
      topics: [{ topic: "orders", partitions: [{ partition: 0, timestamp: -2 }] }],
    }),
    request: (v) => ({
      replicaId: -1,
      isolationLevel: v >= 2 ? 1 : 0,
      topics: [{ name: "orders", partitions: [{ partitionIndex: 0, timestamp: -2n }] }],
    }),
    response: () => ({
      throttleTimeMs: 3,
      topics: [
        { name: "orders", partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: 100n }] },
      ],
    }),
    parsed: (v) => ({
      ...throttle(v, 2, 3, 3),
      responses: [
        { topic: "orders", partitions: [{ partition: 0, errorCode: 0, timestamp: "-1", offset: "100" }] },
      ],
    }),
  },
  {
    api: "findCoordinator",
    apiKey: ApiKey.FindCoordinator,
    versions: range(0, 2),
    args: () => ({ groupId: "group-1" }),
    request: (v) => ({ key: "group-1", keyType: 0, ...(v === 0 && { keyType: 0 }) }),
    response: () => ({
      throttleTimeMs: 1,
      errorCode: 0,
      errorMessage: null,
      nodeId: 1,
      host: broker.host,
      port: 9092,
    }),
    parsed: (v) => ({
      ...throttle(v, 1, 2, 1),
      errorCode: 0,
      ...(v >= 1 && { errorMessage: null }),
      coordinator: { nodeId: 1, host: broker.host, port: 9092 },
    }),
  },
  {
    api: "joinGroup",
    apiKey: ApiKey.JoinGroup,
    versions: range(0, 5),
    args: () => ({
      groupId: "group-1",
      sessionTimeout: 30_000,
      rebalanceTimeout: 60_000,
      memberId: "",
      protocolType: "consumer",
      groupProtocols: [{ name: "RoundRobinAssigner", metadata: Buffer.from([0, 1, 2]) }],
    }),
    request: (v) => ({
      groupId: "group-1",
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: v >= 1 ? 60_000 : -1,
      memberId: "",
      groupInstanceId: null,
      protocolType: "consumer",
      protocols: [{ name: "RoundRobinAssigner", metadata: Buffer.from([0, 1, 2]) }],
    }),
    response: () => ({
      throttleTimeMs: 2,
      errorCode: 0,
      generationId: 3,
      protocolName: "RoundRobinAssigner",
      leader: "member-1",
      memberId: "member-1",
      members: [{ memberId: "member-1", groupInstanceId: null, metadata: Buffer.from([9]) }],
    }),
    parsed: (v) => ({
      ...throttle(v, 2, 3, 2),
      errorCode: 0,
      generationId: 3,
      groupProtocol: "RoundRobinAssigner",
      leaderId: "member-1",
      memberId: "member-1",
      members: [
        { memberId: "member-1", memberMetadata: Buffer.from([9]), ...(v >= 5 && { groupInstanceId: null }) },
      ],
    }),
  },
  {
    api: "syncGroup",
    apiKey: ApiKey.SyncGroup,
    versions: range(0, 3),
    args: () => ({
      groupId: "group-1",
      generationId: 3,
      memberId: "member-1",
      groupAssignment: [{ memberId: "member-1", memberAssignment: Buffer.from([1, 2]) }],
    }),
    request: () => ({
      groupId: "group-1",
      generationId: 3,
      memberId: "member-1",
      groupInstanceId: null,
      assignments: [{ memberId: "member-1", assignment: Buffer.from([1, 2]) }],
    }),
    response: () => ({ throttleTimeMs: 4, errorCode: 0, assignment: Buffer.from([5, 6]) }),
    parsed: (v) => ({ ...throttle(v, 1, 2, 4), errorCode: 0, memberAssignment: Buffer.from([5, 6]) }),
  },
  {
    api: "heartbeat",
    apiKey: ApiKey.Heartbeat,
    versions: range(0, 3),
    args: () => ({ groupId: "group-1", groupGenerationId: 3, memberId: "member-1" }),
    request: () => ({ groupId: "group-1", generationId: 3, memberId: "member-1", groupInstanceId: null }),
    response: () => ({ throttleTimeMs: 6, errorCode: 0 }),
    parsed: (v) => ({ ...throttle(v, 1, 2, 6), errorCode: 0 }),
  },
  {
    api: "leaveGroup",
    apiKey: ApiKey.LeaveGroup,
    versions: range(0, 3),
    args: () => ({ groupId: "group-1", memberId: "member-1" }),
    request: (v) =>
      v >= 3
        ? { groupId: "group-1", members: [{ memberId: "member-1", groupInstanceId: null }] }
        : { groupId: "group-1", memberId: "member-1", members: [] },
    response: () => ({
      throttleTimeMs: 1,
      errorCode: 0,
      members: [{ memberId: "member-1", groupInstanceId: null, errorCode: 0 }],
    }),
    parsed: (v) => ({
      ...throttle(v, 1, 2, 1),
      errorCode: 0,
      ...(v >= 3 && { members: [{ memberId: "member-1", groupInstanceId: null, errorCode: 0 }] }),
    }),
  },
  {
    api: "offsetCommit",
    apiKey: ApiKey.OffsetCommit,
    versions: range(0, 5),
    args: () => ({
      groupId: "group-1",
      groupGenerationId: 3,
      memberId: "member-1",
      // kafkajs commits -1/-2 after OFFSET_OUT_OF_RANGE (kafka-protocol.md §0 rule 10): they must survive.
      topics: [{ topic: "orders", partitions: [{ partition: 0, offset: "-2" }] }],
    }),
    request: (v) => ({
      groupId: "group-1",
      generationIdOrMemberEpoch: v >= 1 ? 3 : -1,
      memberId: v >= 1 ? "member-1" : "",
      retentionTimeMs: -1n,
      topics: [
        {
          name: "orders",
          partitions: [{ partitionIndex: 0, committedOffset: -2n, committedMetadata: null }],
        },
      ],
    }),
    response: () => ({
      throttleTimeMs: 2,
      topics: [{ name: "orders", partitions: [{ partitionIndex: 0, errorCode: 0 }] }],
    }),
    parsed: (v) => ({
      ...throttle(v, 3, 4, 2),
      responses: [{ topic: "orders", partitions: [{ partition: 0, errorCode: 0 }] }],
    }),
  },
  {
    api: "offsetFetch",
    apiKey: ApiKey.OffsetFetch,
    versions: range(1, 4),
    args: () => ({
      groupId: "group-1",
      topics: [{ topic: "orders", partitions: [{ partition: 0 }, { partition: 1 }] }],
    }),
    request: () => ({ groupId: "group-1", topics: [{ name: "orders", partitionIndexes: [0, 1] }] }),
    response: () => ({
      throttleTimeMs: 2,
      topics: [
        {
          name: "orders",
          partitions: [
            { partitionIndex: 0, committedOffset: 42n, metadata: null, errorCode: 0 },
            { partitionIndex: 1, committedOffset: -1n, metadata: "", errorCode: 0 },
          ],
        },
      ],
      errorCode: 0,
    }),
    parsed: (v) => ({
      ...throttle(v, 3, 4, 2),
      responses: [
        {
          topic: "orders",
          partitions: [
            { partition: 0, offset: "42", metadata: null, errorCode: 0 },
            { partition: 1, offset: "-1", metadata: "", errorCode: 0 },
          ],
        },
      ],
      ...(v >= 2 && { errorCode: 0 }),
    }),
  },
  {
    api: "initProducerId",
    apiKey: ApiKey.InitProducerId,
    versions: range(0, 1),
    args: () => ({ transactionalId: null, transactionTimeout: 5000 }),
    request: () => ({ transactionalId: null, transactionTimeoutMs: 5000 }),
    response: () => ({ throttleTimeMs: 8, errorCode: 0, producerId: 4000n, producerEpoch: 0 }),
    parsed: (v) => ({ ...throttle(v, 0, 1, 8), errorCode: 0, producerId: "4000", producerEpoch: 0 }),
  },
  {
    api: "createTopics",
    apiKey: ApiKey.CreateTopics,
    versions: range(0, 3),
    args: () => ({
      topics: [
        {
          topic: "orders",
          numPartitions: 3,
          replicationFactor: 1,
          configEntries: [{ name: "cleanup.policy", value: "compact" }],
        },
        { topic: "defaults" },
      ],
      validateOnly: false,
      timeout: 5000,
    }),
    request: () => ({
      topics: [
        {
          name: "orders",
          numPartitions: 3,
          replicationFactor: 1,
          assignments: [],
          configs: [{ name: "cleanup.policy", value: "compact" }],
        },
        // kafkajs sends -1 for "broker default" (createTopics/v0/request.js).
        { name: "defaults", numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] },
      ],
      timeoutMs: 5000,
      validateOnly: false,
    }),
    response: () => ({
      throttleTimeMs: 9,
      topics: [
        { name: "orders", errorCode: 0, errorMessage: null },
        { name: "defaults", errorCode: 0, errorMessage: null },
      ],
    }),
    parsed: (v) => ({
      ...throttle(v, 2, 3, 9),
      // kafkajs sorts the results by topic name.
      topicErrors: [
        { topic: "defaults", errorCode: 0, ...(v >= 1 && { errorMessage: null }) },
        { topic: "orders", errorCode: 0, ...(v >= 1 && { errorMessage: null }) },
      ],
    }),
  },
  {
    api: "describeConfigs",
    apiKey: ApiKey.DescribeConfigs,
    versions: range(0, 2),
    args: () => ({
      resources: [{ type: 2, name: "orders", configNames: ["cleanup.policy"] }],
      includeSynonyms: true,
    }),
    request: (v) => ({
      resources: [{ resourceType: 2, resourceName: "orders", configurationKeys: ["cleanup.policy"] }],
      includeSynonyms: v >= 1,
    }),
    response: (v) => ({
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: "orders",
          configs: [
            {
              name: "cleanup.policy",
              value: "compact",
              readOnly: false,
              isDefault: false,
              configSource: 1,
              isSensitive: false,
              synonyms: [{ name: "cleanup.policy", value: "compact", source: 1 }],
            },
            {
              name: "segment.ms",
              value: "604800000",
              readOnly: false,
              isDefault: v === 0,
              configSource: 5,
              isSensitive: false,
              synonyms: [],
            },
          ],
        },
      ],
    }),
    parsed: (v) => ({
      ...throttle(v, 0, 2, 0),
      resources: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: "orders",
          configEntries: [
            {
              configName: "cleanup.policy",
              configValue: "compact",
              readOnly: false,
              isDefault: false,
              configSource: 1,
              isSensitive: false,
              ...(v >= 1 && {
                configSynonyms: [{ configName: "cleanup.policy", configValue: "compact", configSource: 1 }],
              }),
            },
            // kafkajs derives isDefault from ConfigSource 5 from v1 (protocol/configSource.js).
            { configName: "segment.ms", isDefault: true, configSource: 5 },
          ],
        },
      ],
    }),
  },
  {
    api: "alterConfigs",
    apiKey: ApiKey.AlterConfigs,
    versions: range(0, 1),
    args: () => ({
      resources: [{ type: 2, name: "orders", configEntries: [{ name: "cleanup.policy", value: "compact" }] }],
      validateOnly: true,
    }),
    request: () => ({
      resources: [
        { resourceType: 2, resourceName: "orders", configs: [{ name: "cleanup.policy", value: "compact" }] },
      ],
      validateOnly: true,
    }),
    response: () => ({
      throttleTimeMs: 0,
      responses: [{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: "orders" }],
    }),
    parsed: (v) => ({
      ...throttle(v, 0, 1, 0),
      resources: [{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: "orders" }],
    }),
  },
  {
    api: "describeGroups",
    apiKey: ApiKey.DescribeGroups,
    versions: range(0, 2),
    args: () => ({ groupIds: ["group-1", "missing"] }),
    request: () => ({ groups: ["group-1", "missing"] }),
    response: () => ({
      throttleTimeMs: 0,
      groups: [
        {
          errorCode: 0,
          groupId: "group-1",
          groupState: "Stable",
          protocolType: "consumer",
          protocolData: "RoundRobinAssigner",
          members: [
            {
              memberId: "member-1",
              clientId: "app",
              clientHost: "/127.0.0.1",
              memberMetadata: Buffer.from([1]),
              memberAssignment: Buffer.from([2]),
            },
          ],
        },
        // A group that does not exist is described as "Dead" with error 0 (kafka-protocol.md §1.2).
        {
          errorCode: 0,
          groupId: "missing",
          groupState: "Dead",
          protocolType: "",
          protocolData: "",
          members: [],
        },
      ],
    }),
    parsed: (v) => ({
      ...throttle(v, 1, 2, 0),
      groups: [
        {
          errorCode: 0,
          groupId: "group-1",
          state: "Stable",
          protocolType: "consumer",
          protocol: "RoundRobinAssigner",
          members: [
            {
              memberId: "member-1",
              clientId: "app",
              clientHost: "/127.0.0.1",
              memberMetadata: Buffer.from([1]),
              memberAssignment: Buffer.from([2]),
            },
          ],
        },
        { errorCode: 0, groupId: "missing", state: "Dead", protocolType: "", protocol: "", members: [] },
      ],
    }),
  },
  {
    api: "listGroups",
    apiKey: ApiKey.ListGroups,
    versions: range(0, 2),
    args: () => undefined,
    request: () => ({}),
    response: () => ({
      throttleTimeMs: 0,
      errorCode: 0,
      groups: [{ groupId: "group-1", protocolType: "consumer" }],
    }),
    parsed: (v) => ({
      ...throttle(v, 1, 2, 0),
      errorCode: 0,
      groups: [{ groupId: "group-1", protocolType: "consumer" }],
    }),
  },
  {
    api: "deleteGroups",
    apiKey: ApiKey.DeleteGroups,
    versions: range(0, 1),
    args: () => ["group-1", "busy"],
    request: () => ({ groupsNames: ["group-1", "busy"] }),
    response: () => ({
      throttleTimeMs: 0,
      results: [
        { groupId: "group-1", errorCode: 0 },
        { groupId: "busy", errorCode: 68 },
      ],
    }),
    parsed: () => ({
      results: [
        { groupId: "group-1", errorCode: 0 },
        { groupId: "busy", errorCode: 68, error: expect.objectContaining({ type: "NON_EMPTY_GROUP" }) },
      ],
    }),
  },
  {
    api: "deleteTopics",
    apiKey: ApiKey.DeleteTopics,
    versions: range(0, 1),
    args: () => ({ topics: ["orders"], timeout: 5000 }),
    request: () => ({ topicNames: ["orders"], timeoutMs: 5000 }),
    response: () => ({ throttleTimeMs: 0, responses: [{ name: "orders", errorCode: 0 }] }),
    parsed: (v) => ({ ...throttle(v, 1, 1, 0), topicErrors: [{ topic: "orders", errorCode: 0 }] }),
  },
  {
    api: "createPartitions",
    apiKey: ApiKey.CreatePartitions,
    versions: range(0, 1),
    args: () => ({ topicPartitions: [{ topic: "orders", count: 6 }], validateOnly: false, timeout: 5000 }),
    // kafkajs writes an empty assignment list as a null array (encoder.writeNullableArray).
    request: () => ({
      topics: [{ name: "orders", count: 6, assignments: null }],
      timeoutMs: 5000,
      validateOnly: false,
    }),
    response: () => ({ throttleTimeMs: 0, results: [{ name: "orders", errorCode: 0, errorMessage: null }] }),
    parsed: (v) => ({
      ...throttle(v, 0, 1, 0),
      topicErrors: [{ topic: "orders", errorCode: 0, errorMessage: null }],
    }),
  },
  {
    api: "deleteRecords",
    apiKey: ApiKey.DeleteRecords,
    versions: range(0, 1),
    args: () => ({
      topics: [{ topic: "orders", partitions: [{ partition: 0, offset: "10" }] }],
      timeout: 5000,
    }),
    request: () => ({
      topics: [{ name: "orders", partitions: [{ partitionIndex: 0, offset: 10n }] }],
      timeoutMs: 5000,
    }),
    response: () => ({
      throttleTimeMs: 0,
      topics: [{ name: "orders", partitions: [{ partitionIndex: 0, lowWatermark: 10n, errorCode: 0 }] }],
    }),
    parsed: () => ({
      topics: [
        {
          topic: "orders",
          // kafkajs leaves this one as its int64 type (a bigint), not a string.
          partitions: [{ partition: 0, errorCode: 0, lowWatermark: 10n }],
        },
      ],
    }),
  },
];

describe.each(contracts)("kafkajs src/protocol/requests/$api", (contract) => {
  it.each(contract.versions)(
    "v%i request: kafkajs's bytes decode to the Kafka JSON fields and re-encode identically",
    async (v) => {
      const frame = await kafkajsRequestFrame(contract.api, v, contract.args(v));
      const decoded = decodeRequest(frame.subarray(4));
      expect(decoded.header).toEqual({
        requestApiKey: contract.apiKey,
        requestApiVersion: v,
        correlationId: CORRELATION_ID,
        clientId: CLIENT_ID,
      });
      expect(decoded.body).toMatchObject(contract.request(v));
      const reencoded = encodeRequest(contract.apiKey, v, decoded.header, decoded.body as never);
      expect(reencoded.equals(frame)).toBe(true);
    },
  );

  it.each(contract.versions)("v%i response: our bytes parse in kafkajs to the same values", async (v) => {
    const frame = encodeResponse(contract.apiKey, v, CORRELATION_ID, contract.response(v) as never);
    const parsed = await kafkajsParseResponse(contract.api, v, contract.args(v), frame);
    expect(parsed).toMatchObject(contract.parsed(v));
  });
});

describe("kafkajs contract: the behaviours kafka-protocol.md relies on", () => {
  it("Metadata: kafkajs's empty topic list is a null array from v1 (all topics) and an empty one at v0", async () => {
    // metadata/v1/request.js uses encoder.writeNullableArray; v0 uses writeArray.
    for (const v of range(0, 6)) {
      const frame = await kafkajsRequestFrame("metadata", v, { topics: [] });
      const { body } = decodeRequest(frame.subarray(4));
      expect((body as { topics: unknown }).topics).toEqual(v === 0 ? [] : null);
    }
  });

  it("OffsetFetch: an empty topic list is null from v3 (every committed topic)", async () => {
    for (const v of range(3, 4)) {
      const frame = await kafkajsRequestFrame("offsetFetch", v, { groupId: "group-1", topics: [] });
      expect((decodeRequest(frame.subarray(4)).body as { topics: unknown }).topics).toBeNull();
    }
  });

  it("Produce: the record set is kafkajs's RecordBatch v2 byte for byte, as a view into the frame (no copy)", async () => {
    const frame = await kafkajsRequestFrame(
      "produce",
      7,
      contracts.find((c) => c.api === "produce")?.args(7),
    );
    const decoded = decodeRequest(frame.subarray(4));
    if (decoded.apiKey !== ApiKey.Produce) throw new Error("expected Produce");
    const records = decoded.body.topicData[0]?.partitionData[0]?.records;
    if (!records) throw new Error("expected records");
    expect(records.buffer).toBe(frame.buffer);
    expect(records.readInt8(16)).toBe(2); // magic
    const messages = await kafkajsDecodeBatch(records);
    expect(messages.map((m) => [m.key?.toString(), m.value?.toString() ?? null])).toEqual([
      ["k1", "v1"],
      ["k2", null],
    ]);
    expect(messages[0]?.headers.h?.toString()).toBe("x");
  });

  it("Fetch: a RecordBatch we return reaches kafkajs's decodeMessages with its offsets, keys and tombstones", async () => {
    const records = await kafkajsRecordBatch("5", [
      { key: "a", value: "1" },
      { key: "b", value: null },
    ]);
    for (const v of range(4, 11)) {
      const frame = encodeResponse(ApiKey.Fetch, v, CORRELATION_ID, {
        responses: [
          {
            topic: "orders",
            partitions: [
              {
                partitionIndex: 0,
                highWatermark: 7n,
                lastStableOffset: 7n,
                abortedTransactions: [],
                records,
              },
            ],
          },
        ],
      });
      const parsed = (await kafkajsParseResponse("fetch", v, {}, frame)) as {
        responses: { partitions: { messages: { offset: string; key: Buffer; value: Buffer | null }[] }[] }[];
      };
      const messages = parsed.responses[0]?.partitions[0]?.messages ?? [];
      expect(messages.map((m) => [m.offset, m.key.toString(), m.value?.toString() ?? null])).toEqual([
        ["5", "a", "1"],
        ["6", "b", null],
      ]);
    }
  });

  it("ApiVersions: error 35 in the v0 layout makes kafkajs fall back (failIfVersionNotSupported)", async () => {
    // Kafka answers an unsupported ApiVersions version in the v0 layout (RequestContext.java); kafkajs
    // reads the error code first and throws UNSUPPORTED_VERSION, which makes broker/index.js retry lower.
    const frame = encodeResponse(ApiKey.ApiVersions, 0, CORRELATION_ID, {
      errorCode: 35,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }],
    });
    await expect(kafkajsParseResponse("apiVersions", 2, undefined, frame)).rejects.toMatchObject({
      type: "UNSUPPORTED_VERSION",
    });
  });

  it("SaslAuthenticate: error 58 with our message surfaces as that message (saslAuthenticate/v0/response.js)", async () => {
    for (const v of range(0, 1)) {
      const frame = encodeResponse(ApiKey.SaslAuthenticate, v, CORRELATION_ID, {
        errorCode: 58,
        errorMessage: "invalid API key secret",
      });
      await expect(kafkajsParseResponse("saslAuthenticate", v, {}, frame)).rejects.toMatchObject({
        type: "SASL_AUTHENTICATION_FAILED",
        message: "invalid API key secret",
      });
    }
  });

  it("JoinGroup: MEMBER_ID_REQUIRED (79) hands kafkajs the generated member id from v4", async () => {
    for (const v of range(4, 5)) {
      const frame = encodeResponse(ApiKey.JoinGroup, v, CORRELATION_ID, {
        errorCode: 79,
        memberId: "member-new",
      });
      await expect(kafkajsParseResponse("joinGroup", v, {}, frame)).rejects.toMatchObject({
        name: "KafkaJSMemberIdRequired",
        memberId: "member-new",
      });
    }
  });

  it("Heartbeat: REBALANCE_IN_PROGRESS (27) reaches kafkajs as that error", async () => {
    for (const v of range(0, 3)) {
      const frame = encodeResponse(ApiKey.Heartbeat, v, CORRELATION_ID, { errorCode: 27 });
      await expect(kafkajsParseResponse("heartbeat", v, {}, frame)).rejects.toMatchObject({
        type: "REBALANCE_IN_PROGRESS",
      });
    }
  });
});
