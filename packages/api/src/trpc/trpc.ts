import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { problemToSend } from "../errors/unexpected-errors";
import type { RequestContext } from "./context";

/** Procedure metadata: the REST mapping (trpc-to-openapi) plus the REST success status. */
export type ProcedureMeta = OpenApiMeta & {
  /** HTTP status of a successful REST call; a function when it depends on the result (207). */
  successStatus?: number | ((data: unknown) => number);
  /** Every success status the route can answer, for the OpenAPI document (default: successStatus or 200). */
  successStatuses?: number[];
};

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // tRPC callers get the same problem document REST callers get, under `data.problem`.
    errorFormatter({ shape, error }) {
      const problem = problemToSend(error);
      return {
        ...shape,
        message: problem.detail,
        data: { ...shape.data, stack: undefined, code: problem.code, httpStatus: problem.status, problem },
      };
    },
  });

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const middleware = t.middleware;
export const baseProcedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;
