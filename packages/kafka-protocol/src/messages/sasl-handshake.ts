import type { ApiSchema } from "../schema-types";

/** SaslHandshake (key 17): apache/kafka 1eb7644 clients/src/main/resources/common/message/SaslHandshake{Request,Response}.json. */
export const saslHandshake = {
  apiKey: 17,
  name: "SaslHandshake",
  validVersions: "0-1",
  flexibleVersions: "none",
  request: [{ name: "mechanism", type: "string", versions: "0+" }],
  response: [
    { name: "errorCode", type: "int16", versions: "0+" },
    { name: "mechanisms", type: "[]string", versions: "0+" },
  ],
} as const satisfies ApiSchema;
