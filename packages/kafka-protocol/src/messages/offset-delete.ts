import type { ApiSchema } from "../schema-types";

/** OffsetDelete (key 47): apache/kafka 1eb7644 clients/src/main/resources/common/message/OffsetDelete{Request,Response}.json. */
export const offsetDelete = {
  apiKey: 47,
  name: "OffsetDelete",
  validVersions: "0",
  flexibleVersions: "none",
  request: [
    { name: "groupId", type: "string", versions: "0+" },
    {
      name: "topics",
      type: "[]OffsetDeleteRequestTopic",
      versions: "0+",
      fields: [
        { name: "name", type: "string", versions: "0+" },
        {
          name: "partitions",
          type: "[]OffsetDeleteRequestPartition",
          versions: "0+",
          fields: [{ name: "partitionIndex", type: "int32", versions: "0+" }],
        },
      ],
    },
  ],
  response: [
    { name: "errorCode", type: "int16", versions: "0+" },
    { name: "throttleTimeMs", type: "int32", versions: "0+" },
    {
      name: "topics",
      type: "[]OffsetDeleteResponseTopic",
      versions: "0+",
      fields: [
        { name: "name", type: "string", versions: "0+" },
        {
          name: "partitions",
          type: "[]OffsetDeleteResponsePartition",
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
