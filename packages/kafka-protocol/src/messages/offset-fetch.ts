import type { ApiSchema } from "../schema-types";

/** OffsetFetch (key 9): apache/kafka 1eb7644 clients/src/main/resources/common/message/OffsetFetch{Request,Response}.json. */
export const offsetFetch = {
  apiKey: 9,
  name: "OffsetFetch",
  validVersions: "0-9",
  flexibleVersions: "6+",
  request: [
    { name: "groupId", type: "string", versions: "0-7" },
    {
      name: "topics",
      type: "[]OffsetFetchRequestTopic",
      versions: "0-7",
      nullableVersions: "2-7",
      fields: [
        { name: "name", type: "string", versions: "0-7" },
        { name: "partitionIndexes", type: "[]int32", versions: "0-7" },
      ],
    },
    {
      name: "groups",
      type: "[]OffsetFetchRequestGroup",
      versions: "8+",
      fields: [
        { name: "groupId", type: "string", versions: "8+" },
        { name: "memberId", type: "string", versions: "9+", nullableVersions: "9+", default: null },
        { name: "memberEpoch", type: "int32", versions: "9+", default: -1 },
        {
          name: "topics",
          type: "[]OffsetFetchRequestTopics",
          versions: "8+",
          nullableVersions: "8+",
          fields: [
            { name: "name", type: "string", versions: "8+" },
            { name: "partitionIndexes", type: "[]int32", versions: "8+" },
          ],
        },
      ],
    },
    { name: "requireStable", type: "bool", versions: "7+", default: false },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "3+" },
    {
      name: "topics",
      type: "[]OffsetFetchResponseTopic",
      versions: "0-7",
      fields: [
        { name: "name", type: "string", versions: "0-7" },
        {
          name: "partitions",
          type: "[]OffsetFetchResponsePartition",
          versions: "0-7",
          fields: [
            { name: "partitionIndex", type: "int32", versions: "0-7" },
            { name: "committedOffset", type: "int64", versions: "0-7" },
            { name: "committedLeaderEpoch", type: "int32", versions: "5-7", default: -1 },
            { name: "metadata", type: "string", versions: "0-7", nullableVersions: "0-7" },
            { name: "errorCode", type: "int16", versions: "0-7" },
          ],
        },
      ],
    },
    { name: "errorCode", type: "int16", versions: "2-7", default: 0 },
    {
      name: "groups",
      type: "[]OffsetFetchResponseGroup",
      versions: "8+",
      fields: [
        { name: "groupId", type: "string", versions: "8+" },
        {
          name: "topics",
          type: "[]OffsetFetchResponseTopics",
          versions: "8+",
          fields: [
            { name: "name", type: "string", versions: "8+" },
            {
              name: "partitions",
              type: "[]OffsetFetchResponsePartitions",
              versions: "8+",
              fields: [
                { name: "partitionIndex", type: "int32", versions: "8+" },
                { name: "committedOffset", type: "int64", versions: "8+" },
                { name: "committedLeaderEpoch", type: "int32", versions: "8+", default: -1 },
                { name: "metadata", type: "string", versions: "8+", nullableVersions: "8+" },
                { name: "errorCode", type: "int16", versions: "8+" },
              ],
            },
          ],
        },
        { name: "errorCode", type: "int16", versions: "8+", default: 0 },
      ],
    },
  ],
} as const satisfies ApiSchema;
