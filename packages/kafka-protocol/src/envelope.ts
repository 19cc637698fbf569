import { readStruct, referencedBytes, sizeStruct, writeStruct } from "./codec";
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

/**
 * Record sets from this size on are not copied into a response frame: a Fetch answer of 8 MiB would
 * otherwise cost the loop a second 8 MiB buffer (and the collections its churn forces) per request.
 */
export const REFERENCED_RECORDS_BYTES = 64 * 1024;

/**
 * The same frame as `encodeResponse`, as the pieces to write in order: the encoded fields in one
 * buffer's slices, and each record set of REFERENCED_RECORDS_BYTES or more as the caller's own
 * buffer between them (written as is; the caller must not change it until the write is done).
 */
export function encodeResponseParts<K extends ApiKey>(
  apiKey: K,
  apiVersion: number,
  correlationId: number,
  body: ResponseInput<K>,
): Buffer[] {
  const bodyPlan = planFor(apiKey, apiVersion, "response");
  const headerPlan = responseHeaderPlans[responseHeaderVersion(apiKey, apiVersion)] as Plan;
  const struct = body as Record<string, unknown>;
  const header = { correlationId };
  const size = sizeStruct(headerPlan, header) + sizeStruct(bodyPlan, struct);
  const own = 4 + size - referencedBytes(bodyPlan, struct, REFERENCED_RECORDS_BYTES);
  const w = new Writer(own, REFERENCED_RECORDS_BYTES);
  w.int32(size);
  writeStruct(w, headerPlan, header);
  writeStruct(w, bodyPlan, struct);
  if (w.pos !== own) throw new KafkaProtocolError("INVALID_VALUE", `encoded ${w.pos} of ${own} own bytes`);
  return w.parts();
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
  const fields = {
    requestApiKey: apiKey,
    requestApiVersion: apiVersion,
    correlationId: header.correlationId,
    clientId: header.clientId,
  };
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

export interface DecodeRequestOptions {
  /**
   * The versions the caller serves, when narrower than the schema table (what the listener
   * advertises in ApiVersions). A version it refuses is UNSUPPORTED_VERSION before the body is read.
   */
  readonly accepts?: (apiKey: ApiKey, apiVersion: number) => boolean;
  /**
   * Kafka reads what the schema needs and ignores the rest of a request frame
   * (`AbstractRequest.parseRequest`), so the default does too; tests turn this on to prove a
   * decoder consumed exactly what the client wrote.
   */
  readonly rejectTrailingBytes?: boolean;
}

/**
 * Decodes one request frame (without its size prefix). The body's byte and record fields are
 * views into `frame`, not copies. An UNSUPPORTED_VERSION error carries the header, so the
 * listener can answer ApiVersions in the v0 layout as Kafka does.
 */
export function decodeRequest(frame: Buffer, options: DecodeRequestOptions = {}): DecodedRequest {
  const { header, reader } = readRequestHeader(frame);
  const apiKey = header.requestApiKey as ApiKey;
  const apiVersion = header.requestApiVersion;
  const partial = { apiKey, apiVersion, correlationId: header.correlationId };
  if (options.accepts && !options.accepts(apiKey, apiVersion)) {
    throw new KafkaProtocolError(
      "UNSUPPORTED_VERSION",
      `${apiKeyName(apiKey)} v${apiVersion} not served`,
      partial,
    );
  }
  const body = withHeader(partial, () => {
    const out = readStruct(reader, planFor(apiKey, apiVersion, "request"));
    if (options.rejectTrailingBytes) expectEnd(reader, `${apiKeyName(apiKey)} v${apiVersion} request`);
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
