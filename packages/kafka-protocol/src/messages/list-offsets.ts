import type { ApiSchema } from "../schema-types";

/** ListOffsets (key 2): apache/kafka 1eb7644 clients/src/main/resources/common/message/ListOffsets{Request,Response}.json. */
export const listOffsets = {
  apiKey: 2,
  name: "ListOffsets",
  validVersions: "0-10",
  flexibleVersions: "6+",
  request: [
    { name: "replicaId", type: "int32", versions: "0+" },
    { name: "isolationLevel", type: "int8", versions: "2+" },
    {
      name: "topics",
      type: "[]ListOffsetsTopic",
      versions: "0+",
      fields: [
        { name: "name", type: "string", versions: "0+" },
        {
          name: "partitions",
          type: "[]ListOffsetsPartition",
          versions: "0+",
          fields: [
            { name: "partitionIndex", type: "int32", versions: "0+" },
            { name: "currentLeaderEpoch", type: "int32", versions: "4+", default: -1 },
            { name: "timestamp", type: "int64", versions: "0+" },
            { name: "maxNumOffsets", type: "int32", versions: "0", default: 1 },
          ],
        },
      ],
    },
    { name: "timeoutMs", type: "int32", versions: "10+" },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "2+" },
    {
      name: "topics",
      type: "[]ListOffsetsTopicResponse",
      versions: "0+",
      fields: [
        { name: "name", type: "string", versions: "0+" },
        {
          name: "partitions",
          type: "[]ListOffsetsPartitionResponse",
          versions: "0+",
          fields: [
            { name: "partitionIndex", type: "int32", versions: "0+" },
            { name: "errorCode", type: "int16", versions: "0+" },
            { name: "oldStyleOffsets", type: "[]int64", versions: "0" },
            { name: "timestamp", type: "int64", versions: "1+", default: -1n },
            { name: "offset", type: "int64", versions: "1+", default: -1n },
            { name: "leaderEpoch", type: "int32", versions: "4+", default: -1 },
          ],
        },
      ],
    },
  ],
} as const satisfies ApiSchema;
