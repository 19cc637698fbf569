import type { ApiSchema } from "../schema-types";

/** OffsetCommit (key 8): apache/kafka 1eb7644 clients/src/main/resources/common/message/OffsetCommit{Request,Response}.json. */
export const offsetCommit = {
  apiKey: 8,
  name: "OffsetCommit",
  validVersions: "0-9",
  flexibleVersions: "8+",
  request: [
    { name: "groupId", type: "string", versions: "0+" },
    { name: "generationIdOrMemberEpoch", type: "int32", versions: "1+", default: -1 },
    { name: "memberId", type: "string", versions: "1+" },
    { name: "groupInstanceId", type: "string", versions: "7+", nullableVersions: "7+", default: null },
    { name: "retentionTimeMs", type: "int64", versions: "2-4", default: -1n },
    {
      name: "topics",
      type: "[]OffsetCommitRequestTopic",
      versions: "0+",
      fields: [
        { name: "name", type: "string", versions: "0+" },
        {
          name: "partitions",
          type: "[]OffsetCommitRequestPartition",
          versions: "0+",
          fields: [
            { name: "partitionIndex", type: "int32", versions: "0+" },
            { name: "committedOffset", type: "int64", versions: "0+" },
            { name: "committedLeaderEpoch", type: "int32", versions: "6+", default: -1 },
            { name: "commitTimestamp", type: "int64", versions: "1", default: -1n },
            { name: "committedMetadata", type: "string", versions: "0+", nullableVersions: "0+" },
          ],
        },
      ],
    },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "3+" },
    {
      name: "topics",
      type: "[]OffsetCommitResponseTopic",
      versions: "0+",
      fields: [
        { name: "name", type: "string", versions: "0+" },
        {
          name: "partitions",
          type: "[]OffsetCommitResponsePartition",
          versions: "0+",
          fields: [
            { name: "partitionIndex", type: "int32", versions: "0+" },
            { name: "errorCode", type: "int16", versions: "0+" },
          ],
        },
      ],
    },
  ],
} as const satisfies ApiSchema;
