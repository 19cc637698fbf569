import { matchRegistryRoute, RegistryError, type RegistryRequest } from "@lastword/schema-registry";
import { type Identity, resolveApiKeySecret } from "../auth/request-identity";
import { hasScope, type Scope } from "../auth/scopes";
import { AppError } from "../errors/app-error";
import { toAppError } from "../errors/problem";
import { problemToSend } from "../errors/unexpected-errors";
import { readBodyCapped } from "../http/body-limit";
import type { ApiDeps } from "../services/api-deps";
import { enforceRequestRate } from "../services/rate-limit.service";
import { ensureRegistryTopic } from "./registry-topic";
import { tenantRegistry } from "./tenant-registries";

/** Where the web app mounts the registry (Confluent clients take it as their base URL). */
export const SCHEMA_REGISTRY_BASE_PATH = "/schema-registry";
/** Largest registry request body: a schema and its references, kept under a record's 1 MiB. */
export const MAX_REGISTRY_BODY_BYTES = 900 * 1024;
const CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": CONTENT_TYPE, ...headers },
  });
}

/** Confluent Cloud's credentials: HTTP Basic with the API key's id and secret; or `Bearer <secret>`. */
async function authenticate(deps: ApiDeps, headers: Headers): Promise<Identity> {
  const header = headers.get("authorization") ?? "";
  const basic = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const keyId = decoded.slice(0, colon);
    const identity = colon > 0 ? await resolveApiKeySecret(deps, decoded.slice(colon + 1)) : null;
    // The id must be the secret's own key: a secret presented under another key's id is refused.
    if (identity?.actor.id !== keyId)
      throw new AppError("UNAUTHENTICATED", "The API key id and secret do not match.");
    return identity;
  }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return resolveApiKeySecret(deps, bearer[1]!);
  throw new AppError(
    "UNAUTHENTICATED",
    "Authenticate with HTTP Basic (API key id as the user name, the key as the password) or `Bearer <api key>`.",
  );
}

/** An AppError in Confluent's body: 401 → 40101, 403 → 40301, 429 → 42901, others status·100+1. */
function appErrorResponse(error: AppError): Response {
  const errorCode =
    error.status === 401
      ? 40101
      : error.status === 403
        ? 40301
        : error.status === 429
          ? 42901
          : error.status * 100 + 1;
  const headers: Record<string, string> = {};
  if (error.status === 401) headers["www-authenticate"] = 'Basic realm="schema-registry"';
  if (error.retryAfterSeconds) headers["retry-after"] = String(error.retryAfterSeconds);
  return json(error.status, { error_code: errorCode, message: error.message }, headers);
}

async function parseBody(request: Request): Promise<unknown> {
  if (request.method === "GET" || request.method === "HEAD" || request.body === null) return undefined;
  const bytes = await readBodyCapped(request, MAX_REGISTRY_BODY_BYTES);
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new RegistryError("BAD_REQUEST", `The request body is not JSON: ${(error as Error).message}`);
  }
}

function segmentsOf(pathname: string): string[] {
  const below = pathname.startsWith(SCHEMA_REGISTRY_BASE_PATH)
    ? pathname.slice(SCHEMA_REGISTRY_BASE_PATH.length)
    : pathname;
  return below
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        throw new RegistryError(
          "BAD_REQUEST",
          `The path segment "${segment}" is not percent-encoded correctly.`,
        );
      }
    });
}

/**
 * `/schema-registry/*`: Confluent's Schema Registry REST API for the caller's tenant. Authenticated
 * with an API key (each request), rate-limited with the tenant's requests, and scoped: reads need
 * `schemas:read`, writes `schemas:write`. Errors are Confluent's `{ error_code, message }`.
 */
export async function handleSchemaRegistry(deps: ApiDeps, request: Request): Promise<Response> {
  try {
    const url = new URL(request.url);
    const route = matchRegistryRoute(request.method, segmentsOf(url.pathname));
    const identity = await authenticate(deps, request.headers);
    await enforceRequestRate(deps, identity.tenantId);
    const scope: Scope = route.access === "write" ? "schemas:write" : "schemas:read";
    if (!hasScope(identity.scopes, scope)) {
      throw new AppError("INSUFFICIENT_SCOPE", `This API key lacks the ${scope} scope this operation needs.`);
    }
    const registryRequest: RegistryRequest = {
      method: request.method,
      segments: segmentsOf(url.pathname),
      query: url.searchParams,
      body: await parseBody(request),
    };
    if (route.access === "write") await ensureRegistryTopic(deps, identity);
    const answer = await route.run(tenantRegistry(deps, identity.tenantId), registryRequest);
    if (typeof answer.body === "string") {
      return new Response(answer.body, { status: answer.status, headers: { "content-type": CONTENT_TYPE } });
    }
    return json(answer.status, answer.body);
  } catch (error) {
    if (error instanceof RegistryError) return json(error.status, error.body);
    const app = toAppError(error);
    if (app) return appErrorResponse(app);
    // Logged with a request id (errors/unexpected-errors.ts) that the message names.
    const { requestId } = problemToSend(error);
    return json(500, {
      error_code: 50001,
      message: `Error in the backend data store (request ${requestId})`,
    });
  }
}
