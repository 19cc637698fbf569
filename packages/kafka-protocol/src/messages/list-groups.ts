import type { ApiSchema } from "../schema-types";

/** ListGroups (key 16): apache/kafka 1eb7644 clients/src/main/resources/common/message/ListGroups{Request,Response}.json. */
export const listGroups = {
  apiKey: 16,
  name: "ListGroups",
  validVersions: "0-5",
  flexibleVersions: "3+",
  request: [
    { name: "statesFilter", type: "[]string", versions: "4+" },
    { name: "typesFilter", type: "[]string", versions: "5+" },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "1+" },
    { name: "errorCode", type: "int16", versions: "0+" },
    {
      name: "groups",
      type: "[]ListedGroup",
      versions: "0+",
      fields: [
        { name: "groupId", type: "string", versions: "0+" },
        { name: "protocolType", type: "string", versions: "0+" },
        { name: "groupState", type: "string", versions: "4+" },
        { name: "groupType", type: "string", versions: "5+" },
      ],
    },
  ],
} as const satisfies ApiSchema;
