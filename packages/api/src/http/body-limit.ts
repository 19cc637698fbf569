import { AppError } from "../errors/app-error";
import { problemToSend } from "../errors/unexpected-errors";
import { problemResponse } from "./problem-response";

/** Largest REST request body accepted (JSON or binary frames). */
export const MAX_REST_BODY_BYTES = 8 * 1024 * 1024;
/** Largest tRPC request body: the console's produce carries what a REST produce may. */
export const MAX_TRPC_BODY_BYTES = MAX_REST_BODY_BYTES;
/** Largest better-auth request body: sign-in, sign-up and organization forms are a few hundred bytes. */
export const MAX_AUTH_BODY_BYTES = 64 * 1024;

export function payloadTooLarge(maxBytes: number): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", `Request bodies here are limited to ${maxBytes} bytes.`, {
    details: { maxBytes },
  });
}

/**
 * The body's bytes, never reading past `maxBytes`: a Content-Length above it is refused unread,
 * and a body sent without one (chunked) is counted as it streams in and dropped at the cap, so an
 * oversized body costs at most `maxBytes` of memory. Throws PAYLOAD_TOO_LARGE.
 */
export async function readBodyCapped(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return chunks.length === 1
    ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, size)
    : Buffer.concat(chunks, size);
}

/**
 * For handlers that read the body themselves (tRPC's fetch adapter, better-auth): the request with
 * its body read under the cap, or the 413 problem answer. Requests without a body pass as they are.
 */
export async function withBodyLimit(req: Request, maxBytes: number): Promise<Request | Response> {
  if (req.method === "GET" || req.method === "HEAD" || req.body === null) return req;
  try {
    const body = await readBodyCapped(req, maxBytes);
    // Node's Buffers sit on ordinary ArrayBuffers; the DOM type also admits SharedArrayBuffer.
    const bytes = body as Uint8Array<ArrayBuffer>;
    return new Request(req.url, {
      method: req.method,
      headers: req.headers,
      body: bytes,
      signal: req.signal,
    });
  } catch (error) {
    return problemResponse(problemToSend(error));
  }
}
