import type { Problem } from "@lastword/api";

/** A non-2xx answer of the API: the RFC 9457 problem document, with its stable `code`. */
export class LastwordApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Problem;
  /** Seconds the server asked to wait (429, 503), if it said. */
  readonly retryAfterSeconds: number | null;

  constructor(problem: Problem, retryAfterSeconds: number | null) {
    super(`${problem.code}: ${problem.detail}`);
    this.name = "LastwordApiError";
    this.status = problem.status;
    this.code = problem.code;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
