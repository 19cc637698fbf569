import { apiKey } from "@better-auth/api-key";
import type { PrismaClient } from "@lastword/db";
import { appendAuditEvent } from "@lastword/db";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError } from "better-auth/api";
import { organization } from "better-auth/plugins/organization";
import { AppError } from "../errors/app-error";
import { accessControl, roles } from "./access-control";
import {
  enforceOrganizationCreationRate,
  lockOrganizationCreation,
  type RateCounterDeps,
  unlockOrganizationCreation,
} from "./auth-rate-limit";
import type { MailSender } from "./mail-sender";

export interface AuthOptions {
  prisma: PrismaClient;
  publicUrl: string;
  secret: string;
  now: () => Date;
  /** Where verification mail goes (auth/mail-sender.ts). */
  mailSender: MailSender;
  /** The shared counters of the per-user organization creation rate (auth-rate-limit.ts). */
  rateCounters: RateCounterDeps;
  /** How many organizations a user may own, the one sign-up made included. */
  maxOrganizationsPerUser: number;
  /**
   * Makes a new user's first tenant (services/tenant.service.ts createTenantForUser): passed in,
   * because the business layer sits above authentication and auth/ imports none of it.
   */
  createTenantForUser(input: { userId: string; name: string; now: Date }): Promise<unknown>;
}

/** Default of `maxOrganizationsPerUser` (the web's MAX_ORGANIZATIONS_PER_USER): each is a tenant with the default quota. */
export const DEFAULT_MAX_ORGANIZATIONS_PER_USER = 3;

/** The header handleAuth sets to the client address (http/client-address.ts); better-auth reads only it. */
export const CLIENT_ADDRESS_HEADER = "x-lastword-client-address";

/** Prefix of every API key, so a leaked key is recognisable (e.g. by secret scanners). */
export const API_KEY_PREFIX = "lw_";

/**
 * The plugin endpoints the console may call over HTTP. Every other organization and API-key
 * endpoint is switched off (404): keys, members, roles and invitations change only through our
 * procedures, which apply the grant rule (auth/grant-rule.ts) and write the audit trail. Server
 * calls (`auth.api.*`, e.g. the key service's `createApiKey`) are not routed, so they still work.
 */
export const ALLOWED_PLUGIN_PATHS: readonly string[] = [
  "/organization/create", // a new tenant owned by its creator, audited by afterCreateOrganization
  "/organization/set-active", // switching among the caller's own memberships
  "/organization/list", // the caller's own memberships
];

/** Every HTTP path of these plugins that ALLOWED_PLUGIN_PATHS does not name. */
export function disabledPluginPaths(plugins: readonly { endpoints?: Record<string, { path?: string }> }[]) {
  return plugins
    .flatMap((plugin) => Object.values(plugin.endpoints ?? {}).map((endpoint) => endpoint.path))
    .filter((path): path is string => path !== undefined && !ALLOWED_PLUGIN_PATHS.includes(path));
}

/**
 * better-auth with email + password, organizations (= tenants, roles of auth/scopes.ts) and
 * organization-owned API keys (stored as SHA-256 hashes). Sign-up creates the user's tenant and
 * sends a verification link; signing in does not need it, accepting an invitation without its
 * token does (services/invitation.service.ts).
 */
export function createAuth(options: AuthOptions) {
  const { prisma } = options;
  // A tuple, not an array: auth.api's type is inferred per plugin.
  const plugins: [ReturnType<typeof organizationPlugin>, ReturnType<typeof apiKeyPlugin>] = [
    organizationPlugin(options),
    apiKeyPlugin(),
  ];
  return betterAuth({
    appName: "Lastword",
    baseURL: options.publicUrl,
    basePath: "/api/auth",
    secret: options.secret,
    trustedOrigins: [options.publicUrl],
    advanced: {
      // better-auth refuses a cookie-carrying POST from an untrusted Origin, but skips that check
      // when NODE_ENV is "test"; on here so tests run what production runs.
      disableOriginCheck: false,
      // `Secure` cookies whenever the console is served over https. better-auth infers the same
      // from baseURL; said here so the public URL, not a request arriving over http behind a TLS
      // proxy, is what decides.
      useSecureCookies: new URL(options.publicUrl).protocol === "https:",
      // Sessions record the client address handleAuth derived from the TCP peer and the trusted
      // proxies (never a client's own X-Forwarded-For); it overwrites this header on every request.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
    },
    // Ours replaces better-auth's limiter (in-memory per process, and on in production only):
    // handleAuth counts attempts per client address in Redis (auth-rate-limit.ts).
    rateLimit: { enabled: false },
    database: prismaAdapter(prisma, { provider: "postgresql" }),
    telemetry: { enabled: false },
    emailAndPassword: { enabled: true, autoSignIn: true, minPasswordLength: 8, maxPasswordLength: 128 },
    emailVerification: {
      sendOnSignUp: true,
      autoSignInAfterVerification: true,
      sendVerificationEmail: async ({ user, url }) => {
        await options.mailSender.send({
          to: user.email,
          subject: "Verify your e-mail address for Lastword",
          text: `Open this link to confirm that ${user.email} is yours:\n\n${url}\n\nIf you did not sign up for Lastword, ignore this message.`,
        });
      },
    },
    disabledPaths: disabledPluginPaths(plugins),
    plugins,
    databaseHooks: {
      user: {
        create: {
          after: async (user) => {
            await options.createTenantForUser({ userId: user.id, name: user.name, now: options.now() });
          },
        },
      },
      session: {
        create: {
          // A new session starts in the user's first tenant, so the console needs no picker.
          before: async (session) => {
            const member = await prisma.member.findFirst({
              where: { userId: session.userId },
              orderBy: { createdAt: "asc" },
            });
            return { data: { ...session, activeOrganizationId: member?.organizationId ?? null } };
          },
        },
      },
    },
  });
}

function organizationPlugin(options: AuthOptions) {
  const { prisma } = options;
  return organization({
    ac: accessControl,
    roles,
    creatorRole: "owner",
    // The console creates organizations through better-auth directly; this starts the tenant's
    // audit trail as sign-up does. Invitations are accepted through our procedure instead.
    organizationHooks: {
      // One person, many tenants, each with the full default quota: bounded in number (owned
      // organizations) and in rate (per user, shared across web processes). One creation per user
      // at a time (a Redis lock, held until the owner row exists), so parallel ones cannot all
      // pass the count.
      beforeCreateOrganization: async ({ user }) => {
        const counters = options.rateCounters;
        if (!(await lockOrganizationCreation(counters, user.id))) {
          throw new APIError("CONFLICT", {
            code: "ORGANIZATION_CREATION_IN_PROGRESS",
            message: "Another organization of yours is being created; try again when it is done.",
          });
        }
        try {
          const owned = await prisma.member.count({ where: { userId: user.id, role: "owner" } });
          if (owned >= options.maxOrganizationsPerUser) {
            throw new APIError("FORBIDDEN", {
              code: "ORGANIZATION_LIMIT",
              message: `You own ${owned} organizations, the most one person may own (${options.maxOrganizationsPerUser}).`,
            });
          }
          await enforceOrganizationCreationRate(counters, user.id);
        } catch (error) {
          await unlockOrganizationCreation(counters, user.id);
          if (!(error instanceof AppError)) throw error;
          throw new APIError(
            "TOO_MANY_REQUESTS",
            { code: error.code, message: error.message },
            { "retry-after": String(error.retryAfterSeconds ?? 60) },
          );
        }
      },
      afterCreateOrganization: async ({ organization: org, user }) => {
        try {
          await prisma.$transaction((tx) =>
            appendAuditEvent(tx, {
              organizationId: org.id,
              actor: { type: "user", id: user.id },
              action: "tenant.created",
              target: { type: "organization", id: org.id },
              data: { name: org.name, slug: org.slug },
              now: options.now(),
            }),
          );
        } finally {
          await unlockOrganizationCreation(options.rateCounters, user.id);
        }
      },
    },
  });
}

function apiKeyPlugin() {
  return apiKey({
    references: "organization",
    defaultPrefix: API_KEY_PREFIX,
    defaultKeyLength: 40,
    enableMetadata: true,
    maximumNameLength: 64,
    startingCharactersConfig: { shouldStore: true, charactersLength: 10 },
    // Request rate limits are per tenant, in Redis (services/rate-limit.service.ts).
    rateLimit: { enabled: false },
    schema: { apikey: { modelName: "apiKey" } },
  });
}

export type Auth = ReturnType<typeof createAuth>;
