import { FRAMES_CONTENT_TYPE } from "@lastword/frames";
import type { AnyTRPCRouter } from "@trpc/server";
import type { OpenAPIObject } from "trpc-to-openapi";
import { AppError } from "../errors/app-error";
import { MAX_REST_BODY_BYTES, readBodyCapped } from "../http/body-limit";
import { hasMediaType, JSON_MEDIA_TYPE } from "../http/media-type";
import type { ApiDeps } from "../services/api-deps";
import {
  callProcedure,
  matchRoute,
  type ProcedureRoute,
  procedureRoutes,
  queryInput,
} from "./procedure-routes";
import { streamResponse } from "./record-stream";
import { REST_ONLY } from "./rest-router";

/** One row of the table: a method and path template below /api/v1, and what answers it. */
export interface RestRoute {
  method: string;
  /** The OpenAPI path template, e.g. `/topics/{topic}/keys/{key}`. */
  path: string;
  /** Matches the percent-encoded path; its named groups are the path parameters. */
  pattern: RegExp;
  serve(req: Request, url: URL, params: Record<string, string>): Promise<Response>;
}

type Serve = (
  route: ProcedureRoute,
  req: Request,
  url: URL,
  params: Record<string, string>,
) => Promise<Response>;

const PRODUCE_RECORDS = "records.produce";

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
async function procedureInput(req: Request, url: URL, route: ProcedureRoute, params: Record<string, string>) {
  const fromQuery = req.method === "GET" || req.method === "DELETE";
  const base = fromQuery ? queryInput(route, url.searchParams) : await jsonBody(req);
  return route.takesInput ? { ...(base as object | undefined), ...params } : undefined;
}

/**
 * Every `/api/v1` route, each served through a procedure of `router` (so through the one access
 * middleware, trpc/access.ts): the JSON procedures answer their result; the two streams answer
 * the stream their procedure planned; the produce route sends a binary frames body to the
 * REST-only frames procedure. Plus the OpenAPI document.
 */
export function restRoutes(router: AnyTRPCRouter, deps: ApiDeps, document: () => OpenAPIObject): RestRoute[] {
  const call = (path: string, req: Request, input: unknown) =>
    callProcedure(router, path, { deps, headers: req.headers }, input);
  const serveJson: Serve = async (route, req, url, params) =>
    jsonAnswer(route, await call(route.procedurePath, req, await procedureInput(req, url, route, params)));
  const serveStream: Serve = async (route, req, url, params) =>
    streamResponse(
      req,
      deps,
      await call(route.procedurePath, req, await procedureInput(req, url, route, params)),
    );
  const serveProduce: Serve = async (route, req, url, params) => {
    if (!hasMediaType(req.headers.get("content-type"), FRAMES_CONTENT_TYPE))
      return serveJson(route, req, url, params);
    const body = await readBodyCapped(req, MAX_REST_BODY_BYTES);
    return jsonAnswer(route, await call(REST_ONLY.produceFrames, req, { topic: params.topic, body }));
  };
  const served: Record<string, Serve> = {
    [REST_ONLY.replay]: serveStream,
    [REST_ONLY.snapshot]: serveStream,
    [PRODUCE_RECORDS]: serveProduce,
  };
  const procedures = procedureRoutes(router).map(
    (route): RestRoute => ({
      method: route.method,
      path: route.meta.openapi!.path,
      pattern: route.pattern,
      serve: (req, url, params) => (served[route.procedurePath] ?? serveJson)(route, req, url, params),
    }),
  );
  const openapi: RestRoute = {
    method: "GET",
    path: "/openapi.json",
    pattern: /^\/openapi\.json$/,
    serve: async () => Response.json(document()),
  };
  return [openapi, ...procedures];
}

/**
 * A path ending in "/" is no route. Every URL parser (browsers, fetch, curl, Python's requests,
 * Next.js) resolves a `.` or `..` segment, even written `%2E%2E`, before a request reaches us:
 * `DELETE /topics/T/keys/..` arrives as `DELETE /topics/T/`. Were the slash dropped (or answered
 * with a redirect to the path without it, as Next.js does by default), a key named `..` would
 * delete its topic. Such keys are addressed by their base64 form (`?keyType=base64`).
 */
const TRAILING_SLASH =
  "No such resource: API paths never end in '/'. A path segment '.' or '..' (also written %2E) is resolved " +
  "by URL parsers before the request is sent, so a key or id of '.' or '..' cannot be named as text in a path: " +
  "send a key as its base64 with ?keyType=base64 (the typed client does).";

/** The table's answer to a request below `basePath`; 404 when no route matches (HEAD: 204, a warm-up). */
export async function serveRestRoute(
  routes: readonly RestRoute[],
  basePath: string,
  req: Request,
): Promise<Response> {
  const url = new URL(req.url);
  const below = url.pathname.slice(basePath.length);
  const matched = matchRoute(routes, req.method, below);
  if (matched) return matched.route.serve(req, url, matched.params);
  if (req.method === "HEAD") return new Response(null, { status: 204 });
  if (below.length > 1 && below.endsWith("/")) {
    throw new AppError("NOT_FOUND", TRAILING_SLASH, { details: { path: url.pathname } });
  }
  throw new AppError("NOT_FOUND", "No such resource.");
}
