import type { ApiSchema } from "../schema-types";

/** DescribeConfigs (key 32): apache/kafka 1eb7644 clients/src/main/resources/common/message/DescribeConfigs{Request,Response}.json. */
export const describeConfigs = {
  apiKey: 32,
  name: "DescribeConfigs",
  validVersions: "0-4",
  flexibleVersions: "4+",
  request: [
    {
      name: "resources",
      type: "[]DescribeConfigsResource",
      versions: "0+",
      fields: [
        { name: "resourceType", type: "int8", versions: "0+" },
        { name: "resourceName", type: "string", versions: "0+" },
        { name: "configurationKeys", type: "[]string", versions: "0+", nullableVersions: "0+" },
      ],
    },
    { name: "includeSynonyms", type: "bool", versions: "1+", default: false },
    { name: "includeDocumentation", type: "bool", versions: "3+", default: false },
  ],
  response: [
    { name: "throttleTimeMs", type: "int32", versions: "0+" },
    {
      name: "results",
      type: "[]DescribeConfigsResult",
      versions: "0+",
      fields: [
        { name: "errorCode", type: "int16", versions: "0+" },
        { name: "errorMessage", type: "string", versions: "0+", nullableVersions: "0+" },
        { name: "resourceType", type: "int8", versions: "0+" },
        { name: "resourceName", type: "string", versions: "0+" },
        {
          name: "configs",
          type: "[]DescribeConfigsResourceResult",
          versions: "0+",
          fields: [
            { name: "name", type: "string", versions: "0+" },
            { name: "value", type: "string", versions: "0+", nullableVersions: "0+" },
            { name: "readOnly", type: "bool", versions: "0+" },
            { name: "isDefault", type: "bool", versions: "0" },
            { name: "configSource", type: "int8", versions: "1+", default: -1 },
            { name: "isSensitive", type: "bool", versions: "0+" },
            {
              name: "synonyms",
              type: "[]DescribeConfigsSynonym",
              versions: "1+",
              fields: [
                { name: "name", type: "string", versions: "1+" },
                { name: "value", type: "string", versions: "1+", nullableVersions: "0+" },
                { name: "source", type: "int8", versions: "1+" },
              ],
            },
            { name: "configType", type: "int8", versions: "3+", default: 0 },
            { name: "documentation", type: "string", versions: "3+", nullableVersions: "0+" },
          ],
        },
      ],
    },
  ],
} as const satisfies ApiSchema;
