/** A Next route handler: the request in, the response out. */
type RouteHandler = (request: Request) => Promise<Response>;

type HttpMethod = "DELETE" | "GET" | "HEAD" | "OPTIONS" | "PATCH" | "POST" | "PUT";

/**
 * `handle` as the handler of every HTTP method, for the routes that only hand each request on to
 * the API server, which routes by method and path itself. A route exports, by destructuring, the
 * methods it answers; Next answers the ones it leaves out.
 */
export function forEveryMethod(handle: RouteHandler): Record<HttpMethod, RouteHandler> {
  return {
    DELETE: handle,
    GET: handle,
    HEAD: handle,
    OPTIONS: handle,
    PATCH: handle,
    POST: handle,
    PUT: handle,
  };
}
