import { type Problem, retryAfterSeconds } from "../errors/problem";
import { problemToSend } from "../errors/unexpected-errors";

/** A problem document as the HTTP answer (application/problem+json, its status). */
export function problemResponse(problem: Problem, headers: Headers = new Headers()): Response {
  headers.set("content-type", "application/problem+json");
  return new Response(JSON.stringify(problem), { status: problem.status, headers });
}

/** A thrown error as its problem answer, with Retry-After when the error is one to retry later. */
export function errorResponse(error: unknown): Response {
  const retryAfter = retryAfterSeconds(error);
  return problemResponse(
    problemToSend(error),
    new Headers(retryAfter ? { "retry-after": String(retryAfter) } : {}),
  );
}
