import type { ApiSchema } from "../schema-types";

/** DeleteTopics (key 20): apache/kafka 1eb7644 clients/src/main/resources/common/message/DeleteTopics{Request,Response}.json. */
export const deleteTopics = {
  apiKey: 20,
  name: "DeleteTopics",
  validVersions: "0-6",
  flexibleVersions: "4+",
  request: [
    {
      name: "topics",
      type: "[]DeleteTopicState",
      versions: "6+",
      fields: [
        { name: "name", type: "string", versions: "6+", nullableVersions: "6+", default: null },
        { name: "topicId", type: "uuid", versions: "6+" },
      ],
    },
    { name: "topicNames", type: "[]string", versions: "0-5" },
    { name: "timeoutMs", type: "int32", versions: "0+" },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "1+" },
    {
      name: "responses",
      type: "[]DeletableTopicResult",
      versions: "0+",
      fields: [
        { name: "name", type: "string", versions: "0+", nullableVersions: "6+" },
        { name: "topicId", type: "uuid", versions: "6+" },
        { name: "errorCode", type: "int16", versions: "0+" },
        { name: "errorMessage", type: "string", versions: "5+", nullableVersions: "5+", default: null },
      ],
    },
  ],
} as const satisfies ApiSchema;
