import { readStruct, sizeStruct, writeStruct } from "./codec";
import type { Plan } from "./compile";
import { KafkaProtocolError, type PartialRequestHeader } from "./errors";
import {
  type RequestHeader,
  requestHeaderPlans,
  requestHeaderVersion,
  responseHeaderPlans,
  responseHeaderVersion,
} from "./headers";
import { Reader, Writer } from "./primitives";
import {
  type ApiKey,
  apiKeyName,
  isKnownApiKey,
  planFor,
  type RequestBody,
  type RequestInput,
  type ResponseBody,
  type ResponseInput,
} from "./registry";

/*
 * A frame is int32 size + header + body. Encoders return the whole frame, size prefix included;
 * decoders take the frame without its size prefix, as the FrameReader yields it.
 */

/** A decoded request, discriminated by `apiKey` so a `switch` narrows `body`. */
export type DecodedRequest = {
  [K in ApiKey]: { apiKey: K; apiVersion: number; header: RequestHeader; body: RequestBody<K> };
}[ApiKey];

export interface DecodedResponse<K extends ApiKey> {
  correlationId: number;
  body: ResponseBody<K>;
}

function encodeFrame(
  headerPlan: Plan,
  header: Record<string, unknown>,
  bodyPlan: Plan,
  body: object,
): Buffer {
  const struct = body as Record<string, unknown>;
  const size = sizeStruct(headerPlan, header) + sizeStruct(bodyPlan, struct);
  const w = new Writer(4 + size);
  w.int32(size);
  writeStruct(w, headerPlan, header);
  writeStruct(w, bodyPlan, struct);
  return w.buf;
}

/** Re-throws a decode failure with what is known of the header, so the listener can log or answer it. */
function withHeader<T>(header: PartialRequestHeader, decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof KafkaProtocolError && !error.header) {
      throw new KafkaProtocolError(error.code, error.message, header);
    }
    throw error;
  }
}

function expectEnd(r: Reader, what: string): void {
  if (r.remaining !== 0)
    throw new KafkaProtocolError("TRAILING_BYTES", `${what}: ${r.remaining} bytes left over`);
}

/** Encodes a response frame; fields left out of `body` encode as their defaults. */
export function encodeResponse<K extends ApiKey>(
  apiKey: K,
  apiVersion: number,
  correlationId: number,
  body: ResponseInput<K>,
): Buffer {
  const bodyPlan = planFor(apiKey, apiVersion, "response");
  const headerPlan = responseHeaderPlans[responseHeaderVersion(apiKey, apiVersion)] as Plan;
  return encodeFrame(headerPlan, { correlationId }, bodyPlan, body);
}

/** Encodes a request frame (for tests and any internal client). */
export function encodeRequest<K extends ApiKey>(
  apiKey: K,
  apiVersion: number,
  header: { correlationId: number; clientId?: string | null },
  body: RequestInput<K>,
): Buffer {
  const bodyPlan = planFor(apiKey, apiVersion, "request");
  const headerPlan = requestHeaderPlans[requestHeaderVersion(apiKey, apiVersion)] as Plan;
  const fields = { requestApiKey: apiKey, requestApiVersion: apiVersion, ...header };
  return encodeFrame(headerPlan, fields, bodyPlan, body);
}

function readRequestHeader(frame: Buffer): { header: RequestHeader; reader: Reader } {
  const reader = new Reader(frame);
  reader.need(8);
  const apiKey = frame.readInt16BE(0);
  const apiVersion = frame.readInt16BE(2);
  const partial: PartialRequestHeader = { apiKey, apiVersion, correlationId: frame.readInt32BE(4) };
  if (!isKnownApiKey(apiKey)) {
    throw new KafkaProtocolError("UNKNOWN_API", `unknown API key ${apiKey}`, partial);
  }
  const plan = requestHeaderPlans[requestHeaderVersion(apiKey, apiVersion)] as Plan;
  const header = withHeader(partial, () => readStruct(reader, plan)) as unknown as RequestHeader;
  return { header, reader };
}

/**
 * Decodes one request frame (without its size prefix). The body's byte and record fields are
 * views into `frame`, not copies. An UNSUPPORTED_VERSION error carries the header, so the
 * listener can answer ApiVersions in the v0 layout as Kafka does.
 */
export function decodeRequest(frame: Buffer): DecodedRequest {
  const { header, reader } = readRequestHeader(frame);
  const apiKey = header.requestApiKey as ApiKey;
  const apiVersion = header.requestApiVersion;
  const partial = { apiKey, apiVersion, correlationId: header.correlationId };
  const body = withHeader(partial, () => {
    const out = readStruct(reader, planFor(apiKey, apiVersion, "request"));
    expectEnd(reader, `${apiKeyName(apiKey)} v${apiVersion} request`);
    return out;
  });
  return { apiKey, apiVersion, header, body } as DecodedRequest;
}

/** Decodes one response frame (without its size prefix) for a request we sent at `apiVersion`. */
export function decodeResponse<K extends ApiKey>(
  apiKey: K,
  apiVersion: number,
  frame: Buffer,
): DecodedResponse<K> {
  const bodyPlan = planFor(apiKey, apiVersion, "response");
  const reader = new Reader(frame);
  const headerPlan = responseHeaderPlans[responseHeaderVersion(apiKey, apiVersion)] as Plan;
  const header = readStruct(reader, headerPlan);
  const body = readStruct(reader, bodyPlan);
  expectEnd(reader, `${apiKeyName(apiKey)} v${apiVersion} response`);
  return { correlationId: header.correlationId as number, body: body as ResponseBody<K> };
}
