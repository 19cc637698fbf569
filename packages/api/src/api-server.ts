import type { DataPlane } from "@lastword/dataplane";
import type { PrismaClient } from "@lastword/db";
import { systemClock } from "@lastword/logstore";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Redis } from "ioredis";
import { CLIENT_ADDRESS_HEADER, createAuth, DEFAULT_MAX_ORGANIZATIONS_PER_USER } from "./auth/auth";
import { enforceAuthRate } from "./auth/auth-rate-limit";
import { logMailSender, type MailSender } from "./auth/mail-sender";
import type { Scope } from "./auth/scopes";
import { type Problem, retryAfterSeconds, toProblem } from "./errors/problem";
import { watchRedisConnection } from "./errors/redis-unavailable";
import { defaultErrorLogger, type ErrorLogger, inRequestScope } from "./errors/unexpected-errors";
import { MAX_AUTH_BODY_BYTES, MAX_TRPC_BODY_BYTES, withBodyLimit } from "./http/body-limit";
import { clientAddress, NO_TRUSTED_PROXIES, type TrustedProxies } from "./http/client-address";
import { errorResponse, problemResponse } from "./http/problem-response";
import { createRestHandler } from "./rest/rest-handler";
import { handleSchemaRegistry } from "./schema-registry/registry-http";
import type { ApiDeps, Clock } from "./services/api-deps";
import { type CreatedApiKey, issueApiKey } from "./services/api-key.service";
import { type ProvisionedTenant, provisionTenant } from "./services/provision.service";
import { createTenantForUser } from "./services/tenant.service";
import { flushUsage } from "./services/usage-counter";
import { appRouter } from "./trpc/app-router";

export interface ApiServerOptions {
  prisma: PrismaClient;
  redis: Redis;
  dataPlane: DataPlane;
  /** The console's public base URL (better-auth's baseURL and trusted origin). */
  publicUrl: string;
  authSecret: string;
  redisPrefix: string;
  clock?: Clock;
  /** Verification mail; written to the log when not given (auth/mail-sender.ts). */
  mailSender?: MailSender;
  /** Where unexpected errors (500s) go, each with its request id (default: pino on stdout). */
  logger?: ErrorLogger;
  /**
   * Proxies whose X-Forwarded-For is believed (the web's TRUST_PROXY, `parseTrustedProxies`);
   * default none: every limit keys on the TCP peer handleAuth is given.
   */
  trustedProxies?: TrustedProxies;
  /** Organizations one user may own (default DEFAULT_MAX_ORGANIZATIONS_PER_USER). */
  maxOrganizationsPerUser?: number;
}

/** What handleAuth knows of the connection a request came on (the web's server stamps it). */
export interface AuthConnection {
  /** The TCP peer's address; without it, every such request shares one "unknown peer" limit. */
  peerAddress?: string | undefined;
}

/** better-auth's paths below this, as the auth rate rules name them. */
const AUTH_BASE_PATH = "/api/auth";

/**
 * The path below /api/auth as the rate rules match it, in every spelling a router might still
 * take for the same endpoint (percent-encoded, upper case, doubled or trailing slashes).
 */
function authPath(url: string): string {
  let path = new URL(url).pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape: matched as written (better-auth answers it 404).
  }
  path = path.toLowerCase().replace(/\/+/g, "/").replace(/\/$/, "");
  return path.startsWith(AUTH_BASE_PATH) ? path.slice(AUTH_BASE_PATH.length) : path;
}

export const TRPC_ENDPOINT = "/api/trpc";

/** The control plane: auth, the tRPC API for the console and the REST API for programs. */
export function createApiServer(options: ApiServerOptions) {
  const clock = options.clock ?? systemClock;
  const auth = createAuth({
    prisma: options.prisma,
    publicUrl: options.publicUrl,
    secret: options.authSecret,
    now: () => new Date(clock.now()),
    mailSender: options.mailSender ?? logMailSender(),
    rateCounters: { redis: options.redis, redisPrefix: options.redisPrefix, clock },
    maxOrganizationsPerUser: options.maxOrganizationsPerUser ?? DEFAULT_MAX_ORGANIZATIONS_PER_USER,
    createTenantForUser: (input) => createTenantForUser(options.prisma, input),
  });
  const trustedProxies = options.trustedProxies ?? NO_TRUSTED_PROXIES;
  const deps: ApiDeps = {
    prisma: options.prisma,
    auth,
    dataPlane: options.dataPlane,
    redis: options.redis,
    redisPrefix: options.redisPrefix,
    clock,
    publicUrl: options.publicUrl,
  };
  const restHandler = createRestHandler(appRouter, deps, options.publicUrl);
  const logger = options.logger ?? defaultErrorLogger();
  watchRedisConnection(options.redis, logger);
  /** Each request runs with its own request id, which a 500's log line and problem body share. */
  const scoped =
    <A extends unknown[]>(handle: (...args: A) => Promise<Response>) =>
    (...args: A): Promise<Response> =>
      inRequestScope(logger, () => handle(...args));
  return {
    auth,
    router: appRouter,
    /** `/api/trpc/*`: the body read under MAX_TRPC_BODY_BYTES first (413 past it, never buffered whole). */
    handleTrpc: scoped(async (request: Request): Promise<Response> => {
      const req = await withBodyLimit(request, MAX_TRPC_BODY_BYTES);
      if (req instanceof Response) return req;
      return fetchRequestHandler({
        endpoint: TRPC_ENDPOINT,
        req,
        router: appRouter,
        createContext: () => ({ deps, headers: req.headers }),
        responseMeta: ({ errors }) => {
          const error = errors[0];
          if (!error) return {};
          const retryAfter = retryAfterSeconds(error);
          return {
            status: toProblem(error).status,
            headers: retryAfter ? { "retry-after": String(retryAfter) } : {},
          };
        },
      });
    }),
    handleRest: scoped(restHandler),
    /** `/schema-registry/*`: Confluent's Schema Registry API per tenant (schema-registry/registry-http.ts). */
    handleSchemaRegistry: scoped(
      (request: Request): Promise<Response> => handleSchemaRegistry(deps, request),
    ),
    /**
     * `/api/auth/*` (better-auth), sign-in and sign-up included: each attempt counted against the
     * auth rate rules (auth/auth-rate-limit.ts) for the client address — the peer, or what trusted
     * proxies forwarded (http/client-address.ts) — which better-auth also records on sessions;
     * bodies capped at MAX_AUTH_BODY_BYTES.
     */
    handleAuth: scoped(async (request: Request, connection: AuthConnection = {}): Promise<Response> => {
      const address = clientAddress(
        connection.peerAddress,
        request.headers.get("x-forwarded-for"),
        trustedProxies,
      );
      const path = authPath(request.url);
      try {
        await enforceAuthRate(
          { redis: options.redis, redisPrefix: options.redisPrefix, clock },
          path,
          address,
        );
      } catch (error) {
        // better-auth's client (the console's forms) shows an error body's `message`.
        const refused = errorResponse(error);
        const problem = (await refused.json()) as Problem;
        return problemResponse({ ...problem, message: problem.detail }, refused.headers);
      }
      const req = await withBodyLimit(request, MAX_AUTH_BODY_BYTES);
      if (req instanceof Response) return req;
      const headers = new Headers(req.headers);
      headers.set(CLIENT_ADDRESS_HEADER, address);
      const body = req.body === null ? undefined : await req.arrayBuffer();
      return auth.handler(new Request(req.url, { method: req.method, headers, body, signal: req.signal }));
    }),
    provisionTenant(input: { name: string; email: string; password: string }): Promise<ProvisionedTenant> {
      return provisionTenant(deps, input);
    },
    createApiKey(input: {
      organizationId: string;
      userId: string;
      name: string;
      scopes?: Scope[];
    }): Promise<CreatedApiKey> {
      return issueApiKey(deps, input);
    },
    /**
     * Graceful stop: writes the usage counted while Postgres was unreachable (waiting at most
     * `timeoutMs` for it to return); true when nothing is left unwritten.
     */
    close(timeoutMs?: number): Promise<boolean> {
      return flushUsage(options.prisma, timeoutMs);
    },
  };
}

export type ApiServer = ReturnType<typeof createApiServer>;
