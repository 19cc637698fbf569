import type { ApiSchema } from "../schema-types";

/** DescribeCluster (key 60): apache/kafka 1eb7644 clients/src/main/resources/common/message/DescribeCluster{Request,Response}.json. */
export const describeCluster = {
  apiKey: 60,
  name: "DescribeCluster",
  validVersions: "0-1",
  flexibleVersions: "0+",
  request: [
    { name: "includeClusterAuthorizedOperations", type: "bool", versions: "0+" },
    { name: "endpointType", type: "int8", versions: "1+", default: 1 },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "0+" },
    { name: "errorCode", type: "int16", versions: "0+" },
    { name: "errorMessage", type: "string", versions: "0+", nullableVersions: "0+", default: null },
    { name: "endpointType", type: "int8", versions: "1+", default: 1 },
    { name: "clusterId", type: "string", versions: "0+" },
    { name: "controllerId", type: "int32", versions: "0+", default: -1 },
    {
      name: "brokers",
      type: "[]DescribeClusterBroker",
      versions: "0+",
      fields: [
        { name: "brokerId", type: "int32", versions: "0+" },
        { name: "host", type: "string", versions: "0+" },
        { name: "port", type: "int32", versions: "0+" },
        { name: "rack", type: "string", versions: "0+", nullableVersions: "0+", default: null },
      ],
    },
    { name: "clusterAuthorizedOperations", type: "int32", versions: "0+", default: -2147483648 },
  ],
} as const satisfies ApiSchema;
