import type { ApiSchema } from "../schema-types";

/** Metadata (key 3): apache/kafka 1eb7644 clients/src/main/resources/common/message/Metadata{Request,Response}.json. */
export const metadata = {
  apiKey: 3,
  name: "Metadata",
  validVersions: "0-12",
  flexibleVersions: "9+",
  request: [
    {
      name: "topics",
      type: "[]MetadataRequestTopic",
      versions: "0+",
      nullableVersions: "1+",
      fields: [
        { name: "topicId", type: "uuid", versions: "10+" },
        { name: "name", type: "string", versions: "0+", nullableVersions: "10+" },
      ],
    },
    { name: "allowAutoTopicCreation", type: "bool", versions: "4+", default: true },
    { name: "includeClusterAuthorizedOperations", type: "bool", versions: "8-10" },
    { name: "includeTopicAuthorizedOperations", type: "bool", versions: "8+" },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "3+" },
    {
      name: "brokers",
      type: "[]MetadataResponseBroker",
      versions: "0+",
      fields: [
        { name: "nodeId", type: "int32", versions: "0+" },
        { name: "host", type: "string", versions: "0+" },
        { name: "port", type: "int32", versions: "0+" },
        { name: "rack", type: "string", versions: "1+", nullableVersions: "1+", default: null },
      ],
    },
    { name: "clusterId", type: "string", versions: "2+", nullableVersions: "2+", default: null },
    { name: "controllerId", type: "int32", versions: "1+", default: -1 },
    {
      name: "topics",
      type: "[]MetadataResponseTopic",
      versions: "0+",
      fields: [
        { name: "errorCode", type: "int16", versions: "0+" },
        { name: "name", type: "string", versions: "0+", nullableVersions: "12+" },
        { name: "topicId", type: "uuid", versions: "10+" },
        { name: "isInternal", type: "bool", versions: "1+", default: false },
        {
          name: "partitions",
          type: "[]MetadataResponsePartition",
          versions: "0+",
          fields: [
            { name: "errorCode", type: "int16", versions: "0+" },
            { name: "partitionIndex", type: "int32", versions: "0+" },
            { name: "leaderId", type: "int32", versions: "0+" },
            { name: "leaderEpoch", type: "int32", versions: "7+", default: -1 },
            { name: "replicaNodes", type: "[]int32", versions: "0+" },
            { name: "isrNodes", type: "[]int32", versions: "0+" },
            { name: "offlineReplicas", type: "[]int32", versions: "5+" },
          ],
        },
        { name: "topicAuthorizedOperations", type: "int32", versions: "8+", default: -2147483648 },
      ],
    },
    { name: "clusterAuthorizedOperations", type: "int32", versions: "8-10", default: -2147483648 },
  ],
} as const satisfies ApiSchema;
