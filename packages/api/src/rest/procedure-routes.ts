import type { AnyTRPCRouter } from "@trpc/server";
import {
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  type OpenApiProcedure,
  unwrapZodType,
} from "trpc-to-openapi";
import { z } from "zod";
import type { ProcedureMeta } from "../trpc/trpc";
import { decodePathSegment } from "./path-segment";

/** A tRPC procedure with an `openapi` mapping, matched by method and path. */
export interface ProcedureRoute {
  method: string;
  /** The router's dotted path, e.g. `keys.get`. */
  procedurePath: string;
  /** Matches the percent-encoded path below /api/v1; its named groups are the path parameters. */
  pattern: RegExp;
  meta: ProcedureMeta;
  /** The input schema's object shape (empty when it is no object). */
  shape: z.ZodRawShape;
  /** False for a `z.void()` input: the procedure is called with none. */
  takesInput: boolean;
}

/**
 * The REST routes of a router's procedures (their `meta.openapi`), the same table trpc-to-openapi
 * generates its document from. Matching happens on the path as sent, so an encoded `/` (`%2F`)
 * inside a parameter never splits it; each parameter is percent-decoded once, after matching.
 */
export function procedureRoutes(router: AnyTRPCRouter): ProcedureRoute[] {
  const routes: ProcedureRoute[] = [];
  forEachOpenApiProcedure(
    router._def.procedures as Record<string, OpenApiProcedure>,
    ({ path, procedure, meta }) => {
      if (procedure._def.type === "subscription") return;
      const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser as z.ZodType, true);
      let shape: z.ZodRawShape = {};
      if (instanceofZodTypeObject(schema)) {
        // Query strings and path parameters arrive as text: numbers and booleans are coerced, as
        // trpc-to-openapi's own handler does (once here rather than on every request).
        coerceSchema(schema);
        shape = schema.shape;
      }
      routes.push({
        method: meta.openapi.method,
        procedurePath: path,
        pattern: getPathRegExp(normalizePath(meta.openapi.path)),
        meta: meta as ProcedureMeta,
        shape,
        takesInput: !instanceofZodTypeLikeVoid(schema),
      });
    },
  );
  return routes;
}

/** The route for a method and encoded path, with its decoded path parameters; null when none. */
export function matchRoute<R extends { method: string; pattern: RegExp }>(
  routes: readonly R[],
  method: string,
  encodedPath: string,
): { route: R; params: Record<string, string> } | null {
  // Matched exactly as sent, never with a trailing "/" dropped: `/topics/T/` is what URL parsers
  // make of `/topics/T/keys/..`, and must not name the topic (rest-routes.ts says why).
  const path = encodedPath.startsWith("/") ? encodedPath : `/${encodedPath}`;
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    for (const [name, raw] of Object.entries(match.groups ?? {})) {
      params[name] = decodePathSegment(raw, `{${name}} parameter`);
    }
    return { route, params };
  }
  return null;
}

/**
 * A query string as procedure input: a repeated name is an array, a single one a string (wrapped
 * in an array when the schema wants one), as trpc-to-openapi reads queries.
 */
export function queryInput(route: ProcedureRoute, searchParams: URLSearchParams): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const name of new Set(searchParams.keys())) {
    const values = searchParams.getAll(name);
    input[name] = values.length === 1 ? values[0] : values;
  }
  for (const [name, schema] of Object.entries(route.shape)) {
    const value = input[name];
    if (value === undefined || Array.isArray(value)) continue;
    const array =
      schema instanceof z.ZodArray ||
      (instanceofZodTypeOptional(schema) && schema.unwrap() instanceof z.ZodArray);
    if (array) input[name] = [value];
  }
  return input;
}

/** A procedure of the router by its dotted path, called in-process with the request's context. */
export function callProcedure(
  router: AnyTRPCRouter,
  procedurePath: string,
  ctx: unknown,
  input: unknown,
): Promise<unknown> {
  const caller = router.createCaller(ctx) as Record<string, unknown>;
  const call = procedurePath
    .split(".")
    .reduce<unknown>((node, name) => (node as Record<string, unknown>)[name], caller);
  return (call as (input: unknown) => Promise<unknown>)(input);
}
