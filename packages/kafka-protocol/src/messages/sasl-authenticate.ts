import type { ApiSchema } from "../schema-types";

/** SaslAuthenticate (key 36): apache/kafka 1eb7644 clients/src/main/resources/common/message/SaslAuthenticate{Request,Response}.json. */
export const saslAuthenticate = {
  apiKey: 36,
  name: "SaslAuthenticate",
  validVersions: "0-2",
  flexibleVersions: "2+",
  request: [{ name: "authBytes", type: "bytes", versions: "0+" }],
  response: [
    { name: "errorCode", type: "int16", versions: "0+" },
    { name: "errorMessage", type: "string", versions: "0+", nullableVersions: "0+" },
    { name: "authBytes", type: "bytes", versions: "0+" },
    { name: "sessionLifetimeMs", type: "int64", versions: "1+", default: 0n },
  ],
} as const satisfies ApiSchema;
