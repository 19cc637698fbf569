import { ApiKey, type DecodedRequest } from "@lastword/kafka-protocol";

/**
 * The answer to a well-framed request whose handler failed, as Kafka's `AbstractRequest
 * .getErrorResponse` builds it: the API's own response with `errorCode` on every topic, partition,
 * group or resource the request named (and at the top where the API has one), so the client gets
 * a Kafka error for its request and its correlation id instead of a closed connection. Fields not
 * set here take their schema defaults (offsets −1, empty lists).
 */
export function errorResponse(request: DecodedRequest, errorCode: number, errorMessage: string): object {
  const top = { throttleTimeMs: 0, errorCode, errorMessage };
  const partitionErrors = (
    topics: readonly { name: string; partitions: readonly { partitionIndex: number }[] }[],
  ) =>
    topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
    }));
  const resourceErrors = (resources: readonly { resourceType: number; resourceName: string }[]) =>
    resources.map((r) => ({
      errorCode,
      errorMessage,
      resourceType: r.resourceType,
      resourceName: r.resourceName,
    }));
  switch (request.apiKey) {
    case ApiKey.Produce:
      return {
        throttleTimeMs: 0,
        responses: request.body.topicData.map((t) => ({
          name: t.name,
          partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode, errorMessage })),
        })),
      };
    case ApiKey.Fetch:
      return {
        ...top,
        sessionId: 0,
        responses: request.body.topics.map((t) => ({
          topic: t.topic,
          topicId: t.topicId,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode })),
        })),
      };
    case ApiKey.ListOffsets:
      return { throttleTimeMs: 0, topics: partitionErrors(request.body.topics) };
    case ApiKey.Metadata:
      return {
        throttleTimeMs: 0,
        brokers: [],
        clusterId: null,
        controllerId: -1,
        topics: (request.body.topics ?? []).map((t) => ({
          errorCode,
          // Names are not nullable before v12; a topic asked for by id alone is answered as "".
          name: request.apiVersion >= 12 ? (t.name ?? null) : (t.name ?? ""),
          topicId: t.topicId,
          isInternal: false,
          partitions: [],
        })),
      };
    case ApiKey.AddPartitionsToTxn:
      return {
        ...top,
        resultsByTopicV3AndBelow: request.body.v3AndBelowTopics.map((t) => ({
          name: t.name,
          resultsByPartition: t.partitions.map((partitionIndex) => ({
            partitionIndex,
            partitionErrorCode: errorCode,
          })),
        })),
      };
    case ApiKey.OffsetCommit:
    case ApiKey.OffsetDelete:
    case ApiKey.TxnOffsetCommit:
      return { ...top, topics: partitionErrors(request.body.topics) };
    case ApiKey.OffsetFetch: {
      const partitionsOf = (topics: { name: string; partitionIndexes: number[] }[] | null) =>
        (topics ?? []).map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode })),
        }));
      return {
        ...top,
        topics: partitionsOf(request.body.topics),
        groups: request.body.groups.map((g) => ({
          groupId: g.groupId,
          errorCode,
          topics: partitionsOf(g.topics),
        })),
      };
    }
    case ApiKey.OffsetForLeaderEpoch:
      return {
        throttleTimeMs: 0,
        topics: request.body.topics.map((t) => ({
          topic: t.topic,
          partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode })),
        })),
      };
    case ApiKey.FindCoordinator:
      return {
        ...top,
        nodeId: -1,
        host: "",
        port: -1,
        coordinators: request.body.coordinatorKeys.map((key) => ({
          key,
          nodeId: -1,
          host: "",
          port: -1,
          errorCode,
          errorMessage,
        })),
      };
    case ApiKey.LeaveGroup:
      return {
        ...top,
        members: request.body.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          errorCode,
        })),
      };
    case ApiKey.DescribeGroups:
      return { throttleTimeMs: 0, groups: request.body.groups.map((groupId) => ({ errorCode, groupId })) };
    case ApiKey.DeleteGroups:
      return {
        throttleTimeMs: 0,
        results: request.body.groupsNames.map((groupId) => ({ groupId, errorCode })),
      };
    case ApiKey.CreateTopics:
      return {
        throttleTimeMs: 0,
        topics: request.body.topics.map((t) => ({ name: t.name, errorCode, errorMessage })),
      };
    case ApiKey.DeleteTopics:
      return {
        throttleTimeMs: 0,
        responses: [
          ...request.body.topics.map((t) => ({ name: t.name, topicId: t.topicId, errorCode, errorMessage })),
          ...request.body.topicNames.map((name) => ({ name, errorCode, errorMessage })),
        ],
      };
    case ApiKey.DeleteRecords:
      return {
        throttleTimeMs: 0,
        topics: request.body.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            lowWatermark: -1n,
            errorCode,
          })),
        })),
      };
    case ApiKey.CreatePartitions:
      return {
        throttleTimeMs: 0,
        results: request.body.topics.map((t) => ({ name: t.name, errorCode, errorMessage })),
      };
    case ApiKey.DescribeConfigs:
      return { throttleTimeMs: 0, results: resourceErrors(request.body.resources) };
    case ApiKey.AlterConfigs:
    case ApiKey.IncrementalAlterConfigs:
      return { throttleTimeMs: 0, responses: resourceErrors(request.body.resources) };
    case ApiKey.CreateAcls:
      return { throttleTimeMs: 0, results: request.body.creations.map(() => ({ errorCode, errorMessage })) };
    case ApiKey.DeleteAcls:
      return {
        throttleTimeMs: 0,
        filterResults: request.body.filters.map(() => ({ errorCode, errorMessage })),
      };
    default:
      // Every other API carries its error at the top (InitProducerId, JoinGroup, SyncGroup,
      // Heartbeat, ListGroups, DescribeCluster, DescribeLogDirs, DescribeAcls, …).
      return top;
  }
}
