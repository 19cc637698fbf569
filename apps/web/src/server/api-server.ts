import { createApiServer, logMailSender, REDIS_CLIENT_OPTIONS, smtpMailSender } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { Redis } from "ioredis";
import { serverEnv } from "../env";
import { database } from "./database";

type ApiServer = ReturnType<typeof createApiServer>;

// Built on first request, not at import: `next build` loads route modules without any services.
const holder = globalThis as typeof globalThis & { __lastwordApiServer?: ApiServer };

export function apiServer(): ApiServer {
  holder.__lastwordApiServer ??= buildApiServer();
  return holder.__lastwordApiServer;
}

/** The server if a request has built it (a stop before any request has nothing to flush). */
export function builtApiServer(): ApiServer | undefined {
  return holder.__lastwordApiServer;
}

function buildApiServer(): ApiServer {
  const env = serverEnv();
  const prisma = database();
  const redis = new Redis(env.REDIS_URL, REDIS_CLIENT_OPTIONS);
  const dataPlane = new DataPlaneClient({ prisma, secret: env.LASTWORD_INTERNAL_SECRET });
  return createApiServer({
    prisma,
    redis,
    dataPlane,
    publicUrl: env.PUBLIC_URL,
    authSecret: env.BETTER_AUTH_SECRET,
    redisPrefix: env.REDIS_PREFIX,
    mailSender: env.SMTP_URL ? smtpMailSender({ url: env.SMTP_URL, from: env.MAIL_FROM }) : logMailSender(),
    trustedProxies: env.trustedProxies,
    ...(env.MAX_ORGANIZATIONS_PER_USER !== undefined && {
      maxOrganizationsPerUser: env.MAX_ORGANIZATIONS_PER_USER,
    }),
  });
}
