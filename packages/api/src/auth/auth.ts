import { apiKey } from "@better-auth/api-key";
import type { PrismaClient } from "@lastword/db";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { organization } from "better-auth/plugins/organization";
import { appendAuditEvent } from "../services/audit.service";
import { createTenantForUser } from "../services/tenant.service";
import { accessControl, roles } from "./access-control";

export interface AuthOptions {
  prisma: PrismaClient;
  publicUrl: string;
  secret: string;
  now: () => Date;
}

/** Prefix of every API key, so a leaked key is recognisable (e.g. by secret scanners). */
export const API_KEY_PREFIX = "lw_";

/**
 * better-auth with email + password, organizations (= tenants, roles of auth/scopes.ts) and
 * organization-owned API keys (stored as SHA-256 hashes). Sign-up creates the user's tenant.
 */
export function createAuth(options: AuthOptions) {
  const { prisma } = options;
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
    },
    database: prismaAdapter(prisma, { provider: "postgresql" }),
    emailAndPassword: { enabled: true, autoSignIn: true, minPasswordLength: 8, maxPasswordLength: 128 },
    telemetry: { enabled: false },
    plugins: [
      organization({
        ac: accessControl,
        roles,
        creatorRole: "owner",
        // The console creates organizations and accepts invitations through better-auth directly;
        // these start and extend the tenant's audit trail as sign-up and members.invite do.
        organizationHooks: {
          afterCreateOrganization: async ({ organization: org, user }) => {
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
          },
          afterAcceptInvitation: async ({ invitation, member, user }) => {
            await prisma.$transaction((tx) =>
              appendAuditEvent(tx, {
                organizationId: invitation.organizationId,
                actor: { type: "user", id: user.id },
                action: "member.joined",
                target: { type: "member", id: member.id },
                data: { invitationId: invitation.id, email: user.email, role: member.role },
                now: options.now(),
              }),
            );
          },
        },
      }),
      apiKey({
        references: "organization",
        defaultPrefix: API_KEY_PREFIX,
        defaultKeyLength: 40,
        enableMetadata: true,
        maximumNameLength: 64,
        startingCharactersConfig: { shouldStore: true, charactersLength: 10 },
        // Request rate limits are per tenant, in Redis (services/rate-limit.service.ts).
        rateLimit: { enabled: false },
        schema: { apikey: { modelName: "apiKey" } },
      }),
    ],
    databaseHooks: {
      user: {
        create: {
          after: async (user) => {
            await createTenantForUser(prisma, { userId: user.id, name: user.name, now: options.now() });
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

export type Auth = ReturnType<typeof createAuth>;
