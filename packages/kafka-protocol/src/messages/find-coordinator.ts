import type { ApiSchema } from "../schema-types";

/** FindCoordinator (key 10): apache/kafka 1eb7644 clients/src/main/resources/common/message/FindCoordinator{Request,Response}.json. */
export const findCoordinator = {
  apiKey: 10,
  name: "FindCoordinator",
  validVersions: "0-6",
  flexibleVersions: "3+",
  request: [
    { name: "key", type: "string", versions: "0-3" },
    { name: "keyType", type: "int8", versions: "1+", default: 0 },
    { name: "coordinatorKeys", type: "[]string", versions: "4+" },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "1+" },
    { name: "errorCode", type: "int16", versions: "0-3" },
    { name: "errorMessage", type: "string", versions: "1-3", nullableVersions: "1-3" },
    { name: "nodeId", type: "int32", versions: "0-3" },
    { name: "host", type: "string", versions: "0-3" },
    { name: "port", type: "int32", versions: "0-3" },
    {
      name: "coordinators",
      type: "[]Coordinator",
      versions: "4+",
      fields: [
        { name: "key", type: "string", versions: "4+" },
        { name: "nodeId", type: "int32", versions: "4+" },
        { name: "host", type: "string", versions: "4+" },
        { name: "port", type: "int32", versions: "4+" },
        { name: "errorCode", type: "int16", versions: "4+" },
        { name: "errorMessage", type: "string", versions: "4+", nullableVersions: "4+" },
      ],
    },
  ],
} as const satisfies ApiSchema;
