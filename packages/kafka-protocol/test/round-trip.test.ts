import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApiSchema } from "../src";
import { parseVersions } from "../src/compile";
import {
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  encodeResponseParts,
  REFERENCED_RECORDS_BYTES,
} from "../src/envelope";
import { ApiKey as Api, type ApiKey, apiSchemas, planFor } from "../src/registry";
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
        const decoded = decodeRequest(payload(encodeRequest(apiKey, version, h, body as never)), {
          rejectTrailingBytes: true,
        });
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
          expect(Buffer.concat(encodeResponseParts(apiKey, version, correlationId, body as never))).toEqual(
            frame,
          );
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe("a response's large record sets are referenced, not copied", () => {
  const records = (size: number, fill: number): Buffer => Buffer.alloc(size, fill);
  const fetchAnswer = (sets: Buffer[]) => ({
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [
      {
        topic: "t",
        topicId: "00000000-0000-0000-0000-000000000000",
        partitions: sets.map((set, partitionIndex) => ({
          partitionIndex,
          errorCode: 0,
          highWatermark: 10n,
          lastStableOffset: 10n,
          logStartOffset: 0n,
          abortedTransactions: [],
          preferredReadReplica: -1,
          records: set,
        })),
      },
    ],
  });
  it.each([4, 11, 12, 16])(
    "Fetch v%i: the pieces are the frame, each large set is the caller's own buffer",
    (version) => {
      const large = [records(REFERENCED_RECORDS_BYTES, 1), records(3 * REFERENCED_RECORDS_BYTES + 7, 2)];
      const sets = [large[0]!, records(REFERENCED_RECORDS_BYTES - 1, 3), large[1]!];
      const body = fetchAnswer(sets);
      const parts = encodeResponseParts(Api.Fetch, version, 42, body as never);
      expect(Buffer.concat(parts)).toEqual(encodeResponse(Api.Fetch, version, 42, body as never));
      for (const set of large) expect(parts.filter((part) => part === set)).toHaveLength(1);
      // What the encoder allocated itself: the fields and the small set, not the large ones.
      const own = parts
        .filter((part) => !(large as Buffer[]).includes(part))
        .reduce((n, part) => n + part.length, 0);
      expect(own).toBeLessThan(REFERENCED_RECORDS_BYTES + 512);
    },
  );
});
