import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { pino } from "pino";
import { type Problem, toProblem } from "./problem";

/** Where unexpected errors are written: pino's shape (a pino logger fits). */
export interface ErrorLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

/** The default: one JSON line per error on stdout, as the worker logs. */
export function defaultErrorLogger(): ErrorLogger {
  return pino({ base: { service: "lastword-api" }, timestamp: pino.stdTimeFunctions.isoTime });
}

interface RequestScope {
  requestId: string;
  logger: ErrorLogger;
}

const requestScope = new AsyncLocalStorage<RequestScope>();
/** Each error is logged once, however many places turn it into its problem (tRPC formats twice). */
const reported = new WeakMap<object, string>();
let fallbackLogger: ErrorLogger | undefined;

/** Runs one HTTP request's handling with its own request id, its unexpected errors going to `logger`. */
export function inRequestScope<T>(logger: ErrorLogger, handle: () => T): T {
  return requestScope.run({ requestId: randomUUID(), logger }, handle);
}

/**
 * `toProblem` for an answer about to be sent: an unexpected error (500 INTERNAL, whose body says
 * nothing internal) is logged with the stack and a request id, and the problem carries that id,
 * so a caller's report finds the log line. Any other problem is returned as it is.
 */
export function problemToSend(error: unknown): Problem {
  const problem = toProblem(error);
  if (problem.status !== 500) return problem;
  const cause = error instanceof TRPCError && error.cause ? error.cause : error;
  const key = typeof cause === "object" && cause !== null ? cause : null;
  const known = key ? reported.get(key) : undefined;
  if (known) return { ...problem, requestId: known };
  // Outside a request's scope (a stream's body read after its handler returned): an id of its own.
  const scope = requestScope.getStore();
  const requestId = scope?.requestId ?? randomUUID();
  if (!scope) fallbackLogger ??= defaultErrorLogger();
  const logger = scope?.logger ?? fallbackLogger!;
  logger.error({ requestId, err: cause }, "unexpected error: answered 500 INTERNAL");
  if (key) reported.set(key, requestId);
  return { ...problem, requestId };
}
