import type { Identity } from "../auth/request-identity";
import type { ApiDeps } from "../services/api-deps";

/** Per request: the dependencies and the caller's headers (the web app passes them in). */
export interface RequestContext {
  deps: ApiDeps;
  headers: Headers;
}

export interface AuthedContext extends RequestContext {
  identity: Identity;
}
