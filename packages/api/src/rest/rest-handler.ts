import { BY_KEY_PARTITION, describeFrames, FRAMES_CONTENT_TYPE, NO_TIMESTAMP } from "@lastword/frames";
import type { AnyTRPCRouter } from "@trpc/server";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { errorResponse } from "../http/problem-response";
import type { ApiDeps } from "../services/api-deps";
import type { ProcedureMeta } from "../trpc/trpc";
import { documentStreams } from "./record-stream-openapi";
import { restRouter } from "./rest-router";
import { restRoutes, serveRestRoute } from "./rest-routes";

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

/** The produce route's second body (served by the REST-only frames procedure, rest-routes.ts). */
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
        `Big-endian frames: ${describeFrames(["partition", "batch"])}. A partition frame applies to ` +
        `the batch frames after it (0x${BY_KEY_PARTITION.toString(16).toUpperCase()}: by key hash, ` +
        `the default). In a record the offset is ignored and the timestamp is ms since the epoch, ` +
        `${NO_TIMESTAMP} for the server's time. Same answer as the JSON body.`,
    },
  };
}

/** The document of every `/api/v1` route: `app`'s procedures and the REST-only ones (rest-router.ts). */
export function openApiDocument(app: AnyTRPCRouter, publicUrl: string): OpenAPIObject {
  const router = restRouter(app);
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
  documentStreams(document);
  return document;
}

/** `/api/v1/*`: the REST face of the same procedures, with problem+json errors. */
export function createRestHandler(app: AnyTRPCRouter, deps: ApiDeps, publicUrl: string) {
  let document: OpenAPIObject | null = null;
  const routes = restRoutes(restRouter(app), deps, () => {
    document ??= openApiDocument(app, publicUrl);
    return document;
  });
  return async (req: Request): Promise<Response> => {
    try {
      return await serveRestRoute(routes, REST_BASE_PATH, req);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
