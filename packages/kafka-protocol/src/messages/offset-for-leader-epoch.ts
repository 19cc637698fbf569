import type { ApiSchema } from "../schema-types";

/** OffsetForLeaderEpoch (key 23): apache/kafka 1eb7644 clients/src/main/resources/common/message/OffsetForLeaderEpoch{Request,Response}.json. */
export const offsetForLeaderEpoch = {
  apiKey: 23,
  name: "OffsetForLeaderEpoch",
  validVersions: "0-4",
  flexibleVersions: "4+",
  request: [
    { name: "replicaId", type: "int32", versions: "3+", default: -2 },
    {
      name: "topics",
      type: "[]OffsetForLeaderTopic",
      versions: "0+",
      fields: [
        { name: "topic", type: "string", versions: "0+" },
        {
          name: "partitions",
          type: "[]OffsetForLeaderPartition",
          versions: "0+",
          fields: [
            { name: "partition", type: "int32", versions: "0+" },
            { name: "currentLeaderEpoch", type: "int32", versions: "2+", default: -1 },
            { name: "leaderEpoch", type: "int32", versions: "0+" },
          ],
        },
      ],
    },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "2+" },
    {
      name: "topics",
      type: "[]OffsetForLeaderTopicResult",
      versions: "0+",
      fields: [
        { name: "topic", type: "string", versions: "0+" },
        {
          name: "partitions",
          type: "[]EpochEndOffset",
          versions: "0+",
          fields: [
            { name: "errorCode", type: "int16", versions: "0+" },
            { name: "partition", type: "int32", versions: "0+" },
            { name: "leaderEpoch", type: "int32", versions: "1+", default: -1 },
            { name: "endOffset", type: "int64", versions: "0+", default: -1n },
          ],
        },
      ],
    },
  ],
} as const satisfies ApiSchema;
