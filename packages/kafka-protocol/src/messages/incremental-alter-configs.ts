import type { ApiSchema } from "../schema-types";

/** IncrementalAlterConfigs (key 44): apache/kafka 1eb7644 clients/src/main/resources/common/message/IncrementalAlterConfigs{Request,Response}.json. */
export const incrementalAlterConfigs = {
  apiKey: 44,
  name: "IncrementalAlterConfigs",
  validVersions: "0-1",
  flexibleVersions: "1+",
  request: [
    {
      name: "resources",
      type: "[]AlterConfigsResource",
      versions: "0+",
      fields: [
        { name: "resourceType", type: "int8", versions: "0+" },
        { name: "resourceName", type: "string", versions: "0+" },
        {
          name: "configs",
          type: "[]AlterableConfig",
          versions: "0+",
          fields: [
            { name: "name", type: "string", versions: "0+" },
            { name: "configOperation", type: "int8", versions: "0+" },
            { name: "value", type: "string", versions: "0+", nullableVersions: "0+" },
          ],
        },
      ],
    },
    { name: "validateOnly", type: "bool", versions: "0+" },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "0+" },
    {
      name: "responses",
      type: "[]AlterConfigsResourceResponse",
      versions: "0+",
      fields: [
        { name: "errorCode", type: "int16", versions: "0+" },
        { name: "errorMessage", type: "string", versions: "0+", nullableVersions: "0+" },
        { name: "resourceType", type: "int8", versions: "0+" },
        { name: "resourceName", type: "string", versions: "0+" },
      ],
    },
  ],
} as const satisfies ApiSchema;
