import type { AnyTRPCRouter } from "@trpc/server";
import { createOpenApiFetchHandler, generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { type Problem, retryAfterSeconds, toProblem } from "../errors/problem";
import type { ApiDeps } from "../trpc/context";
import type { ProcedureMeta } from "../trpc/trpc";

export const REST_BASE_PATH = "/api/v1";

/** Largest REST request body accepted. */
export const MAX_REST_BODY_BYTES = 8 * 1024 * 1024;

export function openApiDocument(router: AnyTRPCRouter, publicUrl: string): OpenAPIObject {
  return generateOpenApiDocument(router, {
    title: "Lastword API",
    version: "1.0.0",
    description:
      "Managed compacted topics. Authenticate with `Authorization: Bearer <api key>`. Errors are RFC 9457 problem details with a stable `code`.",
    baseUrl: `${publicUrl.replace(/\/$/, "")}${REST_BASE_PATH}`,
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "An API key" } },
  });
}

function problemResponse(problem: Problem, headers: Headers = new Headers()): Response {
  headers.set("content-type", "application/problem+json");
  return new Response(JSON.stringify(problem), { status: problem.status, headers });
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

/** `/api/v1/*`: the REST face of the same procedures, with problem+json errors. */
export function createRestHandler(router: AnyTRPCRouter, deps: ApiDeps, publicUrl: string) {
  let document: OpenAPIObject | null = null;
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (url.pathname === `${REST_BASE_PATH}/openapi.json`) {
      document ??= openApiDocument(router, publicUrl);
      return Response.json(document);
    }
    const response = await createOpenApiFetchHandler({
      req,
      endpoint: REST_BASE_PATH,
      router,
      maxBodySize: MAX_REST_BODY_BYTES,
      createContext: () => ({ deps, headers: req.headers }),
      responseMeta: ({ paths, data, errors }) => {
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
    } as Parameters<typeof createOpenApiFetchHandler>[0]);
    return response.status >= 400 ? asProblem(response) : response;
  };
}
