import type { ApiSchema } from "../schema-types";

/** Heartbeat (key 12): apache/kafka 1eb7644 clients/src/main/resources/common/message/Heartbeat{Request,Response}.json. */
export const heartbeat = {
  apiKey: 12,
  name: "Heartbeat",
  validVersions: "0-4",
  flexibleVersions: "4+",
  request: [
    { name: "groupId", type: "string", versions: "0+" },
    { name: "generationId", type: "int32", versions: "0+" },
    { name: "memberId", type: "string", versions: "0+" },
    { name: "groupInstanceId", type: "string", versions: "3+", nullableVersions: "3+", default: null },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "1+" },
    { name: "errorCode", type: "int16", versions: "0+" },
  ],
} as const satisfies ApiSchema;
