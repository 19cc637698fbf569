import { FRAMES_CONTENT_TYPE } from "@lastword/frames";
import type { AnyTRPCRouter } from "@trpc/server";
import { TRPCError } from "@trpc/server";
import { createOpenApiNodeHttpHandler, generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { AppError } from "../errors/app-error";
import { type Problem, retryAfterSeconds, toProblem } from "../errors/problem";
import { createFramesProduceCaller } from "../procedures/records/produce-frames";
import type { ApiDeps } from "../trpc/context";
import type { ProcedureMeta } from "../trpc/trpc";
import { decodePathSegment } from "./path-segment";
import { errorResponse, problemResponse } from "./problem-response";
import { handleRecordStream } from "./record-stream";
import { STREAM_OPENAPI_PATHS } from "./record-stream-openapi";

export const REST_BASE_PATH = "/api/v1";

/** Largest REST request body accepted. */
export const MAX_REST_BODY_BYTES = 8 * 1024 * 1024;

type SchemaEntry = NonNullable<NonNullable<OpenAPIObject["components"]>["schemas"]>[string];

const PROBLEM_SCHEMA: SchemaEntry = {
  type: "object",
  description: "RFC 9457 problem details with a stable `code`",
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string", description: "Stable machine-readable code, e.g. TOPIC_NOT_FOUND" },
  },
  required: ["type", "title", "status", "detail", "code"],
  additionalProperties: true,
};

type Operation = { responses?: Record<string, { description?: string; content?: Record<string, unknown> }> };

function documentedStatuses(meta: ProcedureMeta | undefined): number[] {
  if (meta?.successStatuses) return meta.successStatuses;
  return typeof meta?.successStatus === "number" ? [meta.successStatus] : [200];
}

// trpc-to-openapi documents its own error body and 200 only; ours answers problem+json and the
// statuses the procedures declare.
function reshapeResponses(document: OpenAPIObject, router: AnyTRPCRouter): void {
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, Problem: PROBLEM_SCHEMA };
  const procedures = Object.values(
    router._def.procedures as Record<string, { _def: { meta?: ProcedureMeta } }>,
  );
  for (const procedure of procedures) {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi) continue;
    const operation = (document.paths?.[openapi.path] as Record<string, Operation> | undefined)?.[
      openapi.method.toLowerCase()
    ];
    const responses = operation?.responses;
    if (!responses) continue;
    const success = responses["200"];
    delete responses["200"];
    for (const status of documentedStatuses(procedure._def.meta)) {
      if (success)
        responses[String(status)] = {
          ...success,
          description:
            status === 207 ? "Some records were not written (see each result's error)" : success.description,
        };
    }
    // Every route can be rate limited; every route naming a resource can miss it.
    responses["429"] ??= { description: "Rate limit or quota reached (see Retry-After)" };
    if (openapi.path.includes("{")) responses["404"] ??= { description: "No such resource in this tenant" };
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) >= 400) {
        response.content = {
          "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
        };
      }
    }
  }
}

/** The produce route's second body (served by handleFramesProduce, beside trpc-to-openapi). */
function documentFramesProduce(document: OpenAPIObject): void {
  type WithBody = { requestBody?: { content?: Record<string, unknown> } };
  const produce = (document.paths?.["/topics/{topic}/records"] as Record<string, WithBody> | undefined)?.post;
  const content = produce?.requestBody?.content;
  if (!content) return;
  content[FRAMES_CONTENT_TYPE] = {
    schema: {
      type: "string",
      format: "binary",
      description:
        "Big-endian frames. `u8 5 | u32 partition` (0xFFFFFFFF = by key hash, the default) applies to the batch frames after it; " +
        "`u8 4 | u32 byteLength | records`, each `f64 offset (ignored) | f64 timestamp (ms, -1 = server time) | " +
        "i32 keyLen (-1 = null) | key | i32 valueLen (-1 = tombstone) | value | u16 headerCount | " +
        "per header u16 nameLen | UTF-8 name | i32 valueLen (-1 = null) | value`. Same answer as the JSON body.",
    },
  };
}

export function openApiDocument(router: AnyTRPCRouter, publicUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Lastword API",
    version: "1.0.0",
    description:
      "Managed compacted topics. Authenticate with `Authorization: Bearer <api key>`. Errors are RFC 9457 problem details with a stable `code`.",
    baseUrl: `${publicUrl.replace(/\/$/, "")}${REST_BASE_PATH}`,
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "An API key" } },
  });
  reshapeResponses(document, router);
  documentFramesProduce(document);
  // The streaming routes are served beside trpc-to-openapi; their entries are written by hand.
  document.paths = { ...document.paths, ...(STREAM_OPENAPI_PATHS as OpenAPIObject["paths"]) };
  return document;
}

// The error formatter put the problem document in `data.problem`; lift it to the whole body.
async function asProblem(response: Response): Promise<Response> {
  const body = (await response.json().catch(() => null)) as { data?: { problem?: Problem } } | null;
  const problem = body?.data?.problem ?? toProblem(new Error("unreadable error body"));
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return problemResponse(problem, headers);
}

function successStatus(router: AnyTRPCRouter, path: string | undefined, data: unknown): number {
  if (!path) return 200;
  const procedure = (router._def.procedures as Record<string, { _def: { meta?: ProcedureMeta } }>)[path];
  const status = procedure?._def.meta?.successStatus;
  return typeof status === "function" ? status(data) : (status ?? 200);
}

type NodeHandler = (req: unknown, res: unknown) => Promise<void>;

function tooLarge(): Response {
  const problem = toProblem(
    new AppError("PAYLOAD_TOO_LARGE", `Request bodies are limited to ${MAX_REST_BODY_BYTES} bytes.`),
  );
  return problemResponse(problem);
}

/** The body's bytes, or null past MAX_REST_BODY_BYTES (declared or sent). */
async function readBytes(req: Request): Promise<Buffer | null> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > MAX_REST_BODY_BYTES) return null;
  const bytes = Buffer.from(await req.arrayBuffer());
  return bytes.length > MAX_REST_BODY_BYTES ? null : bytes;
}

async function readBody(
  req: Request,
): Promise<{ ok: true; data: unknown } | { ok: false; cause: unknown } | null> {
  // Measured and decoded as bytes: one pass each, not text then its byte length.
  const bytes = await readBytes(req);
  if (bytes === null) return null;
  if (!req.headers.get("content-type")?.includes("application/json")) return { ok: true, data: undefined };
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  try {
    return { ok: true, data: JSON.parse(bytes.toString("utf8", bom)) };
  } catch (cause) {
    return { ok: false, cause };
  }
}

/**
 * Runs trpc-to-openapi's node handler on a fetch Request. Its own fetch adapter rebuilds (and
 * re-validates) the whole OpenAPI document on every request, ~50 ms; this builds the handler once.
 */
function fetchAdapter(handler: NodeHandler) {
  return async (req: Request): Promise<Response> => {
    const body =
      req.method === "GET" || req.method === "HEAD"
        ? { ok: true as const, data: undefined }
        : await readBody(req);
    if (body === null) return tooLarge();
    const url = req.url.replace(REST_BASE_PATH, "");
    const proxy = new Proxy(req, {
      get(target, prop) {
        if (prop === "url") return url;
        if (prop === "body") {
          if (!body.ok)
            throw new TRPCError({ code: "PARSE_ERROR", message: "Malformed JSON", cause: body.cause });
          return body.data;
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return new Promise<Response>((resolve) => {
      const headers = new Headers();
      const res = {
        statusCode: 200,
        setHeader(key: string, value: string | string[]) {
          for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
        },
        end(payload?: string) {
          resolve(new Response(payload ?? null, { status: this.statusCode, headers }));
        },
      };
      void handler(proxy, res);
    });
  };
}

const PRODUCE_PATH = new RegExp(`^${REST_BASE_PATH}/topics/([^/]+)/records$`);

/**
 * `POST /topics/{topic}/records` with a binary body (`Content-Type: application/vnd.lastword.frames`,
 * @lastword/frames), or null for any other request. Served beside trpc-to-openapi (which
 * reads JSON only) through the in-process procedure that has the JSON route's access checks and
 * produce service; the answer is the JSON route's, status included.
 */
async function handleFramesProduce(
  req: Request,
  deps: ApiDeps,
  router: AnyTRPCRouter,
): Promise<Response | null> {
  if (req.method !== "POST" || !req.headers.get("content-type")?.includes(FRAMES_CONTENT_TYPE)) return null;
  const match = PRODUCE_PATH.exec(new URL(req.url).pathname);
  if (!match) return null;
  const body = await readBytes(req);
  if (body === null) return tooLarge();
  try {
    const caller = createFramesProduceCaller({ deps, headers: req.headers });
    const data = await caller.produce({ topic: decodePathSegment(match[1]!, "topic name"), body });
    return Response.json(data, { status: successStatus(router, "records.produce", data) });
  } catch (error) {
    return errorResponse(error);
  }
}

/** `/api/v1/*`: the REST face of the same procedures, with problem+json errors. */
export function createRestHandler(router: AnyTRPCRouter, deps: ApiDeps, publicUrl: string) {
  let document: OpenAPIObject | null = null;
  const handler = createOpenApiNodeHttpHandler({
    router,
    maxBodySize: MAX_REST_BODY_BYTES,
    createContext: ({ req }: { req: { headers: Headers } }) => ({ deps, headers: req.headers }),
    responseMeta: ({ paths, data, errors }: { paths?: string[]; data: unknown[]; errors: unknown[] }) => {
      const error = errors[0];
      if (error) {
        const retryAfter = retryAfterSeconds(error);
        return {
          status: toProblem(error).status,
          headers: retryAfter ? { "retry-after": String(retryAfter) } : {},
        };
      }
      return { status: successStatus(router, paths?.[0], data[0]) };
    },
  } as unknown as Parameters<typeof createOpenApiNodeHttpHandler>[0]) as unknown as NodeHandler;
  const handle = fetchAdapter(handler);
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (url.pathname === `${REST_BASE_PATH}/openapi.json`) {
      document ??= openApiDocument(router, publicUrl);
      return Response.json(document);
    }
    const streamed = await handleRecordStream(req, deps);
    if (streamed) return streamed;
    const produced = await handleFramesProduce(req, deps, router);
    if (produced) return produced;
    const response = await handle(req);
    return response.status >= 400 ? asProblem(response) : response;
  };
}
