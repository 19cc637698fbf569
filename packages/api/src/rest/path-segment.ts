import { AppError } from "../errors/app-error";

/**
 * One percent-encoded path parameter of a REST route (rest/procedure-routes.ts), decoded once.
 * A malformed escape ("%E0%A4%A") is the caller's mistake: a 400, not a URIError becoming a 500.
 */
export function decodePathSegment(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError("INVALID_INPUT", `The ${what} in the path is not valid percent-encoding: "${raw}".`);
  }
}
