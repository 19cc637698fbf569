import type { ApiSchema } from "../schema-types";

/** DescribeLogDirs (key 35): apache/kafka 1eb7644 clients/src/main/resources/common/message/DescribeLogDirs{Request,Response}.json. */
export const describeLogDirs = {
  apiKey: 35,
  name: "DescribeLogDirs",
  validVersions: "0-4",
  flexibleVersions: "2+",
  request: [
    {
      name: "topics",
      type: "[]DescribableLogDirTopic",
      versions: "0+",
      nullableVersions: "0+",
      fields: [
        { name: "topic", type: "string", versions: "0+" },
        { name: "partitions", type: "[]int32", versions: "0+" },
      ],
    },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "0+" },
    { name: "errorCode", type: "int16", versions: "3+" },
    {
      name: "results",
      type: "[]DescribeLogDirsResult",
      versions: "0+",
      fields: [
        { name: "errorCode", type: "int16", versions: "0+" },
        { name: "logDir", type: "string", versions: "0+" },
        {
          name: "topics",
          type: "[]DescribeLogDirsTopic",
          versions: "0+",
          fields: [
            { name: "name", type: "string", versions: "0+" },
            {
              name: "partitions",
              type: "[]DescribeLogDirsPartition",
              versions: "0+",
              fields: [
                { name: "partitionIndex", type: "int32", versions: "0+" },
                { name: "partitionSize", type: "int64", versions: "0+" },
                { name: "offsetLag", type: "int64", versions: "0+" },
                { name: "isFutureKey", type: "bool", versions: "0+" },
              ],
            },
          ],
        },
        { name: "totalBytes", type: "int64", versions: "4+", default: -1n },
        { name: "usableBytes", type: "int64", versions: "4+", default: -1n },
      ],
    },
  ],
} as const satisfies ApiSchema;
