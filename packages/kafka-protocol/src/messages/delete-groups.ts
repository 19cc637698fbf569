import type { ApiSchema } from "../schema-types";

/** DeleteGroups (key 42): apache/kafka 1eb7644 clients/src/main/resources/common/message/DeleteGroups{Request,Response}.json. */
export const deleteGroups = {
  apiKey: 42,
  name: "DeleteGroups",
  validVersions: "0-2",
  flexibleVersions: "2+",
  request: [{ name: "groupsNames", type: "[]string", versions: "0+" }],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "0+" },
    {
      name: "results",
      type: "[]DeletableGroupResult",
      versions: "0+",
      fields: [
        { name: "groupId", type: "string", versions: "0+" },
        { name: "errorCode", type: "int16", versions: "0+" },
      ],
    },
  ],
} as const satisfies ApiSchema;
