import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApiSchema } from "../src";
import { parseVersions } from "../src/compile";
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from "../src/envelope";
import { type ApiKey, apiSchemas, planFor } from "../src/registry";
import { planArbitrary } from "./schema-arbitrary";

/*
 * (b) Property: for every schema and every version in its range, a random message encodes and
 * decodes back to itself, through the full frame (size prefix, header, body).
 */

const RUNS = 25;
const schemas = Object.values(apiSchemas) as ApiSchema[];

function versionsOf(schema: ApiSchema): number[] {
  const { min, max } = parseVersions(schema.validVersions);
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

function payload(frame: Buffer): Buffer {
  expect(frame.readInt32BE(0)).toBe(frame.length - 4);
  return frame.subarray(4);
}

describe.each(schemas.map((schema) => [schema.name, schema] as const))("%s round trip", (_name, schema) => {
  const apiKey = schema.apiKey as ApiKey;
  it.each(versionsOf(schema))("request v%i: decode(encode(m)) equals m", (version) => {
    const header = fc.record({
      correlationId: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      clientId: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
    });
    fc.assert(
      fc.property(header, planArbitrary(planFor(apiKey, version, "request")), (h, body) => {
        const decoded = decodeRequest(payload(encodeRequest(apiKey, version, h, body as never)));
        expect(decoded.apiKey).toBe(apiKey);
        expect(decoded.apiVersion).toBe(version);
        expect(decoded.header).toEqual({ requestApiKey: apiKey, requestApiVersion: version, ...h });
        expect(decoded.body).toEqual(body);
      }),
      { numRuns: RUNS },
    );
  });
  it.each(versionsOf(schema))("response v%i: decode(encode(m)) equals m", (version) => {
    fc.assert(
      fc.property(
        fc.integer(),
        planArbitrary(planFor(apiKey, version, "response")),
        (correlationId, body) => {
          const frame = encodeResponse(apiKey, version, correlationId, body as never);
          const decoded = decodeResponse(apiKey, version, payload(frame));
          expect(decoded).toEqual({ correlationId, body });
        },
      ),
      { numRuns: RUNS },
    );
  });
});
