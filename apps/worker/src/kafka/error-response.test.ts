import {
  ApiKey,
  apiSchemas,
  type DecodedRequest,
  decodeRequest,
  decodeResponse,
  ErrorCode,
  encodeRequest,
  encodeResponse,
  type FieldSchema,
} from "@lastword/kafka-protocol";
import { describe, expect, it } from "vitest";
import { ADVERTISED_APIS } from "./advertised-apis";
import { errorResponse } from "./error-response";

// Issue 28.10: any handler failure on a well-framed request is answered with the API's own
// response carrying UNKNOWN_SERVER_ERROR. The answer must encode for every API and version the
// listener advertises, and carry the error where the client looks for it.

const PRIMITIVE_SAMPLES: Record<string, unknown> = {
  int8: 1,
  int16: 1,
  int32: 1,
  int64: 1n,
  uint16: 1,
  float64: 1,
  bool: false,
  string: "t",
  uuid: "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
  bytes: Buffer.alloc(0),
  records: null,
};

/** A request body naming one of everything (one topic, one partition, one group, one resource). */
function sample(fields: readonly FieldSchema[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.type.startsWith("[]")) {
      const item = field.type.slice(2);
      out[field.name] = [field.fields ? sample(field.fields) : PRIMITIVE_SAMPLES[item]];
    } else if (field.fields) {
      out[field.name] = sample(field.fields);
    } else if (field.type in PRIMITIVE_SAMPLES) {
      out[field.name] = PRIMITIVE_SAMPLES[field.type];
    }
  }
  return out;
}

const schemaOf = (apiKey: number) =>
  Object.values(apiSchemas).find((s) => s.apiKey === apiKey) as { request: readonly FieldSchema[] };

/** Every error code anywhere in a decoded response (`errorCode`, or AddPartitionsToTxn's `partitionErrorCode`). */
function errorCodes(value: unknown): number[] {
  if (Array.isArray(value)) return value.flatMap(errorCodes);
  if (value === null || typeof value !== "object" || Buffer.isBuffer(value)) return [];
  return Object.entries(value).flatMap(([name, v]) =>
    /(^e|E)rrorCode$/.test(name) && typeof v === "number" ? [v] : errorCodes(v),
  );
}

const UNAUTHENTICATED: readonly number[] = [
  ApiKey.ApiVersions,
  ApiKey.SaslHandshake,
  ApiKey.SaslAuthenticate,
];
const SERVED = ADVERTISED_APIS.filter((a) => !UNAUTHENTICATED.includes(a.apiKey)).flatMap((a) =>
  Array.from({ length: a.maxVersion - a.minVersion + 1 }, (_, i) => ({
    apiKey: a.apiKey as ApiKey,
    version: a.minVersion + i,
  })),
);

describe("errorResponse", () => {
  it.each(SERVED)(
    "encodes UNKNOWN_SERVER_ERROR for API $apiKey v$version, on what the request named",
    ({ apiKey, version }) => {
      const frame = encodeRequest(
        apiKey,
        version,
        { correlationId: 7, clientId: "c" },
        sample(schemaOf(apiKey).request) as never,
      );
      const request: DecodedRequest = decodeRequest(frame.subarray(4));
      const body = errorResponse(request, ErrorCode.UNKNOWN_SERVER_ERROR, "failed");
      const answer = encodeResponse(apiKey, version, 7, body as never);
      const decoded = decodeResponse(apiKey, version, answer.subarray(4));
      expect(decoded.correlationId).toBe(7);
      // Decoding fills fields a version lacks with 0: only UNKNOWN_SERVER_ERROR and those may appear.
      const codes = errorCodes(decoded.body);
      const shown = JSON.stringify(decoded.body, (_, v) => (typeof v === "bigint" ? String(v) : v));
      expect(
        codes.every((c) => c === ErrorCode.UNKNOWN_SERVER_ERROR || c === 0),
        shown,
      ).toBe(true);
      // DescribeLogDirs before v3 has no error field for a request (Kafka answers it empty too).
      if (apiKey !== ApiKey.DescribeLogDirs || version >= 3) {
        expect(codes, shown).toContain(ErrorCode.UNKNOWN_SERVER_ERROR);
      }
    },
  );
});
