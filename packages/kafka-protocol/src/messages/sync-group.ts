import type { ApiSchema } from "../schema-types";

/** SyncGroup (key 14): apache/kafka 1eb7644 clients/src/main/resources/common/message/SyncGroup{Request,Response}.json. */
export const syncGroup = {
  apiKey: 14,
  name: "SyncGroup",
  validVersions: "0-5",
  flexibleVersions: "4+",
  request: [
    { name: "groupId", type: "string", versions: "0+" },
    { name: "generationId", type: "int32", versions: "0+" },
    { name: "memberId", type: "string", versions: "0+" },
    { name: "groupInstanceId", type: "string", versions: "3+", nullableVersions: "3+", default: null },
    { name: "protocolType", type: "string", versions: "5+", nullableVersions: "5+", default: null },
    { name: "protocolName", type: "string", versions: "5+", nullableVersions: "5+", default: null },
    {
      name: "assignments",
      type: "[]SyncGroupRequestAssignment",
      versions: "0+",
      fields: [
        { name: "memberId", type: "string", versions: "0+" },
        { name: "assignment", type: "bytes", versions: "0+" },
      ],
    },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "1+" },
    { name: "errorCode", type: "int16", versions: "0+" },
    { name: "protocolType", type: "string", versions: "5+", nullableVersions: "5+", default: null },
    { name: "protocolName", type: "string", versions: "5+", nullableVersions: "5+", default: null },
    { name: "assignment", type: "bytes", versions: "0+" },
  ],
} as const satisfies ApiSchema;
