import type { ApiSchema } from "../schema-types";

/** ApiVersions (key 18): apache/kafka 1eb7644 clients/src/main/resources/common/message/ApiVersions{Request,Response}.json. */
export const apiVersions = {
  apiKey: 18,
  name: "ApiVersions",
  validVersions: "0-4",
  flexibleVersions: "3+",
  request: [
    { name: "clientSoftwareName", type: "string", versions: "3+" },
    { name: "clientSoftwareVersion", type: "string", versions: "3+" },
  ],
  response: [
    { name: "errorCode", type: "int16", versions: "0+" },
    {
      name: "apiKeys",
      type: "[]ApiVersion",
      versions: "0+",
      fields: [
        { name: "apiKey", type: "int16", versions: "0+" },
        { name: "minVersion", type: "int16", versions: "0+" },
        { name: "maxVersion", type: "int16", versions: "0+" },
      ],
    },
    { name: "throttleTimeMs", type: "int32", versions: "1+" },
    {
      name: "supportedFeatures",
      type: "[]SupportedFeatureKey",
      versions: "3+",
      taggedVersions: "3+",
      tag: 0,
      fields: [
        { name: "name", type: "string", versions: "3+" },
        { name: "minVersion", type: "int16", versions: "3+" },
        { name: "maxVersion", type: "int16", versions: "3+" },
      ],
    },
    {
      name: "finalizedFeaturesEpoch",
      type: "int64",
      versions: "3+",
      taggedVersions: "3+",
      tag: 1,
      default: -1n,
    },
    {
      name: "finalizedFeatures",
      type: "[]FinalizedFeatureKey",
      versions: "3+",
      taggedVersions: "3+",
      tag: 2,
      fields: [
        { name: "name", type: "string", versions: "3+" },
        { name: "maxVersionLevel", type: "int16", versions: "3+" },
        { name: "minVersionLevel", type: "int16", versions: "3+" },
      ],
    },
    { name: "zkMigrationReady", type: "bool", versions: "3+", taggedVersions: "3+", tag: 3, default: false },
  ],
} as const satisfies ApiSchema;
