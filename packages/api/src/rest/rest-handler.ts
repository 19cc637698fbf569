import type { AnyTRPCRouter } from "@trpc/server";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { AppError } from "../errors/app-error";
import { MAX_REST_BODY_BYTES, readBodyCapped } from "../http/body-limit";
import { hasMediaType, JSON_MEDIA_TYPE } from "../http/media-type";
import { createFramesProduceCaller } from "../procedures/records/produce-frames";
import type { ApiDeps } from "../trpc/context";
import type { ProcedureMeta } from "../trpc/trpc";
import { errorResponse } from "./problem-response";
import {
  callProcedure,
  matchProcedureRoute,
  type ProcedureRoute,
  procedureRoutes,
  queryInput,
} from "./procedure-routes";
import { handleRecordStream } from "./record-stream";
import { FRAMES_CONTENT_TYPE } from "./record-stream-frames";
import { STREAM_OPENAPI_PATHS } from "./record-stream-openapi";

export const REST_BASE_PATH = "/api/v1";

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

function successStatus(route: ProcedureRoute, data: unknown): number {
  const status = route.meta.successStatus;
  return typeof status === "function" ? status(data) : (status ?? 200);
}

function jsonAnswer(route: ProcedureRoute, data: unknown): Response {
  const status = successStatus(route, data);
  return data === undefined ? new Response(null, { status }) : Response.json(data, { status });
}

/** A JSON body as procedure input; anything but `application/json` is refused (415). */
async function jsonBody(req: Request): Promise<unknown> {
  if (!hasMediaType(req.headers.get("content-type"), JSON_MEDIA_TYPE)) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.");
  }
  // Measured and decoded as bytes: one pass each, not text then its byte length.
  const bytes = await readBodyCapped(req, MAX_REST_BODY_BYTES);
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  try {
    return JSON.parse(bytes.toString("utf8", bom));
  } catch (cause) {
    throw new AppError("MALFORMED_REQUEST", "The request body is not valid JSON.", { cause });
  }
}

/** GET and DELETE take their input from the query; the other methods from a JSON body. */
async function procedureInput(
  req: Request,
  url: URL,
  route: ProcedureRoute,
  params: Record<string, string>,
): Promise<unknown> {
  const fromQuery = req.method === "GET" || req.method === "DELETE";
  const base = fromQuery ? queryInput(route, url.searchParams) : await jsonBody(req);
  return { ...(base as object | undefined), ...params };
}

/**
 * `POST /topics/{topic}/records` with a binary body (`Content-Type: application/vnd.lastword.frames`,
 * records/produce-frames.ts). Served through the in-process procedure that has the JSON route's
 * access checks and produce service; the answer is the JSON route's, status included.
 */
async function framesProduce(req: Request, deps: ApiDeps, route: ProcedureRoute, topic: string) {
  const caller = createFramesProduceCaller({ deps, headers: req.headers });
  const body = await readBodyCapped(req, MAX_REST_BODY_BYTES);
  return jsonAnswer(route, await caller.produce({ topic, body }));
}

/** `/api/v1/*`: the REST face of the same procedures, with problem+json errors. */
export function createRestHandler(router: AnyTRPCRouter, deps: ApiDeps, publicUrl: string) {
  let document: OpenAPIObject | null = null;
  const routes = procedureRoutes(router);
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (url.pathname === `${REST_BASE_PATH}/openapi.json`) {
      document ??= openApiDocument(router, publicUrl);
      return Response.json(document);
    }
    const streamed = await handleRecordStream(req, deps);
    if (streamed) return streamed;
    try {
      const matched = matchProcedureRoute(routes, req.method, url.pathname.slice(REST_BASE_PATH.length));
      if (!matched) {
        // Can be used for warm-up, as trpc-to-openapi answered it.
        if (req.method === "HEAD") return new Response(null, { status: 204 });
        throw new AppError("NOT_FOUND", "No such resource.");
      }
      const { route, params } = matched;
      if (
        route.procedurePath === "records.produce" &&
        hasMediaType(req.headers.get("content-type"), FRAMES_CONTENT_TYPE)
      ) {
        return await framesProduce(req, deps, route, params.topic!);
      }
      const input = await procedureInput(req, url, route, params);
      return jsonAnswer(route, await callProcedure(router, route, { deps, headers: req.headers }, input));
    } catch (error) {
      return errorResponse(error);
    }
  };
}
