import type { ApiSchema } from "../schema-types";

/** LeaveGroup (key 13): apache/kafka 1eb7644 clients/src/main/resources/common/message/LeaveGroup{Request,Response}.json. */
export const leaveGroup = {
  apiKey: 13,
  name: "LeaveGroup",
  validVersions: "0-5",
  flexibleVersions: "4+",
  request: [
    { name: "groupId", type: "string", versions: "0+" },
    { name: "memberId", type: "string", versions: "0-2" },
    {
      name: "members",
      type: "[]MemberIdentity",
      versions: "3+",
      fields: [
        { name: "memberId", type: "string", versions: "3+" },
        { name: "groupInstanceId", type: "string", versions: "3+", nullableVersions: "3+", default: null },
        { name: "reason", type: "string", versions: "5+", nullableVersions: "5+", default: null },
      ],
    },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "1+" },
    { name: "errorCode", type: "int16", versions: "0+" },
    {
      name: "members",
      type: "[]MemberResponse",
      versions: "3+",
      fields: [
        { name: "memberId", type: "string", versions: "3+" },
        { name: "groupInstanceId", type: "string", versions: "3+", nullableVersions: "3+" },
        { name: "errorCode", type: "int16", versions: "3+" },
      ],
    },
  ],
} as const satisfies ApiSchema;
