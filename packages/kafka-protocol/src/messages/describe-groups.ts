import type { ApiSchema } from "../schema-types";

/** DescribeGroups (key 15): apache/kafka 1eb7644 clients/src/main/resources/common/message/DescribeGroups{Request,Response}.json. */
export const describeGroups = {
  apiKey: 15,
  name: "DescribeGroups",
  validVersions: "0-5",
  flexibleVersions: "5+",
  request: [
    { name: "groups", type: "[]string", versions: "0+" },
    { name: "includeAuthorizedOperations", type: "bool", versions: "3+" },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "1+" },
    {
      name: "groups",
      type: "[]DescribedGroup",
      versions: "0+",
      fields: [
        { name: "errorCode", type: "int16", versions: "0+" },
        { name: "groupId", type: "string", versions: "0+" },
        { name: "groupState", type: "string", versions: "0+" },
        { name: "protocolType", type: "string", versions: "0+" },
        { name: "protocolData", type: "string", versions: "0+" },
        {
          name: "members",
          type: "[]DescribedGroupMember",
          versions: "0+",
          fields: [
            { name: "memberId", type: "string", versions: "0+" },
            {
              name: "groupInstanceId",
              type: "string",
              versions: "4+",
              nullableVersions: "4+",
              default: null,
            },
            { name: "clientId", type: "string", versions: "0+" },
            { name: "clientHost", type: "string", versions: "0+" },
            { name: "memberMetadata", type: "bytes", versions: "0+" },
            { name: "memberAssignment", type: "bytes", versions: "0+" },
          ],
        },
        { name: "authorizedOperations", type: "int32", versions: "3+", default: -2147483648 },
      ],
    },
  ],
} as const satisfies ApiSchema;
