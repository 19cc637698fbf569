import { AppError } from "../errors/app-error";

/**
 * A percent-encoded path segment (a topic name) of the routes served beside trpc-to-openapi.
 * A malformed escape ("%E0%A4%A") is the caller's mistake: a 400, not a URIError becoming a 500.
 */
export function decodePathSegment(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError("INVALID_INPUT", `The ${what} in the path is not valid percent-encoding: "${raw}".`);
  }
}
