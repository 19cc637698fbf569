import { compileFields, type Plan } from "./compile";
import { ApiKey, isFlexible } from "./registry";
import type { FieldSchema } from "./schema-types";

/** apache/kafka clients/src/main/resources/common/message/RequestHeader.json (versions 0-2, flexible 2+). */
const requestHeaderFields = [
  { name: "requestApiKey", type: "int16", versions: "0+" },
  { name: "requestApiVersion", type: "int16", versions: "0+" },
  { name: "correlationId", type: "int32", versions: "0+" },
  // Keeps its int16 length even in header v2 ("flexibleVersions": "none" in the JSON).
  {
    name: "clientId",
    type: "string",
    versions: "1+",
    nullableVersions: "1+",
    flexibleVersions: "none",
    default: "",
  },
] as const satisfies readonly FieldSchema[];

/** apache/kafka clients/src/main/resources/common/message/ResponseHeader.json (versions 0-1, flexible 1+). */
const responseHeaderFields = [
  { name: "correlationId", type: "int32", versions: "0+" },
] as const satisfies readonly FieldSchema[];

export interface RequestHeader {
  readonly requestApiKey: number;
  readonly requestApiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
}

export const requestHeaderPlans: readonly Plan[] = [0, 1, 2].map((v) =>
  compileFields(requestHeaderFields, v, v >= 2),
);
export const responseHeaderPlans: readonly Plan[] = [0, 1].map((v) =>
  compileFields(responseHeaderFields, v, v >= 1),
);

/**
 * Header v2 (with a tag buffer) goes with flexible request versions, v1 with the rest. Versions
 * above an API's range still follow its flexible rule, as Kafka's generated
 * `ApiMessageType.requestHeaderVersion` does, so an unsupported ApiVersions v5 is still parsed.
 */
export function requestHeaderVersion(apiKey: number, apiVersion: number): 1 | 2 {
  return isFlexible(apiKey, apiVersion) ? 2 : 1;
}

/**
 * Response header v1 (with a tag buffer) goes with flexible versions, except ApiVersions, which
 * always answers with v0 so a client that does not yet know our versions can read it
 * (generator ApiMessageTypeGenerator `generateHeaderVersion`; kafka-protocol.md §1.2).
 */
export function responseHeaderVersion(apiKey: number, apiVersion: number): 0 | 1 {
  if (apiKey === ApiKey.ApiVersions) return 0;
  return isFlexible(apiKey, apiVersion) ? 1 : 0;
}
