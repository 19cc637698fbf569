import { parseTrustedProxies } from "@lastword/api/client-address";
import { DEV_INTERNAL_SECRET } from "@lastword/dataplane/dev-secret";
import { z } from "zod";

// Development-only fallback for the auth secret; production must set real secrets (a fixed
// default is public). The data-plane secret's fallback is the worker's too, so it comes from
// the package of the protocol both sides speak.
const DEV_AUTH_SECRET = "lastword-development-secret-not-for-production";

/**
 * Secrets anyone can read (this repository's defaults, past and present): whoever knows the auth
 * secret forges sessions and e-mail verification tokens, so production refuses them.
 */
const PUBLIC_SECRETS: readonly string[] = [
  DEV_AUTH_SECRET,
  DEV_INTERNAL_SECRET,
  "change-me-auth-secret-at-least-32-chars",
  "change-me-internal-secret",
];

/** Fewer distinct characters than this is a pattern (`aaaa…`, `abab…`), not a generated secret. */
const MIN_DISTINCT_SECRET_CHARACTERS = 8;

/** Why a secret may not be used in production, or null: a public default, a placeholder or a pattern. */
export function publicOrWeakSecret(value: string): string | null {
  if (PUBLIC_SECRETS.includes(value)) return "is a public default from the Lastword repository";
  if (/change-?me|replace-?me|example|placeholder/i.test(value)) return "is a placeholder";
  if (new Set(value).size < MIN_DISTINCT_SECRET_CHARACTERS)
    return `has fewer than ${MIN_DISTINCT_SECRET_CHARACTERS} distinct characters (generate one: openssl rand -hex 32)`;
  return null;
}

const serverEnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    DATABASE_URL: z.url().default("postgresql://postgres@127.0.0.1:5432/lastword"),
    REDIS_URL: z.url().default("redis://127.0.0.1:6379"),
    REDIS_PREFIX: z.string().min(1).default("lastword"),
    PUBLIC_URL: z.url().default("http://localhost:3000"),
    BETTER_AUTH_SECRET: z.string().min(32).optional(),
    LASTWORD_INTERNAL_SECRET: z.string().min(16).optional(),
    // Verification mail goes through this SMTP server (nodemailer URL, e.g. smtps://user:pass@host:465);
    // without it, messages are written to the server log.
    SMTP_URL: z.url().optional(),
    MAIL_FROM: z.string().min(3).default("Lastword <no-reply@localhost>"),
    // Proxies whose X-Forwarded-For is believed: off (default) or a CIDR list (10.0.0.0/8, 127.0.0.1).
    TRUST_PROXY: z.string().optional(),
    // Organizations one user may own, the one sign-up makes included (each a tenant with the default
    // quota); default @lastword/api's DEFAULT_MAX_ORGANIZATIONS_PER_USER (3).
    MAX_ORGANIZATIONS_PER_USER: z.coerce.number().int().min(1).max(1000).optional(),
  })
  .transform((env, ctx) => {
    const production = env.NODE_ENV === "production";
    for (const name of ["BETTER_AUTH_SECRET", "LASTWORD_INTERNAL_SECRET"] as const) {
      if (production && !env[name]) {
        ctx.addIssue({ code: "custom", path: [name], message: `${name} is required in production.` });
      }
    }
    if (production && env.LASTWORD_INTERNAL_SECRET === DEV_INTERNAL_SECRET) {
      ctx.addIssue({
        code: "custom",
        path: ["LASTWORD_INTERNAL_SECRET"],
        message: "LASTWORD_INTERNAL_SECRET must not be the development default in production.",
      });
    }
    for (const name of ["BETTER_AUTH_SECRET", "LASTWORD_INTERNAL_SECRET"] as const) {
      const value = env[name];
      const reason =
        production && value !== undefined && value !== DEV_INTERNAL_SECRET ? publicOrWeakSecret(value) : null;
      if (reason)
        ctx.addIssue({ code: "custom", path: [name], message: `${name} ${reason}; production refuses it.` });
    }
    let trustedProxies = parseTrustedProxies(undefined);
    try {
      trustedProxies = parseTrustedProxies(env.TRUST_PROXY);
    } catch (error) {
      ctx.addIssue({ code: "custom", path: ["TRUST_PROXY"], message: (error as Error).message });
    }
    return {
      ...env,
      trustedProxies,
      BETTER_AUTH_SECRET: env.BETTER_AUTH_SECRET ?? DEV_AUTH_SECRET,
      LASTWORD_INTERNAL_SECRET: env.LASTWORD_INTERNAL_SECRET ?? DEV_INTERNAL_SECRET,
    };
  });

export type ServerEnv = z.output<typeof serverEnvSchema>;

export function parseServerEnv(source: Record<string, string | undefined>): ServerEnv {
  const parsed = serverEnvSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`Invalid environment for apps/web: ${problems.join("; ")}`);
  }
  return parsed.data;
}

let cached: ServerEnv | undefined;

/**
 * Read lazily, not at import: `next build` imports route modules with NODE_ENV=production and
 * no secrets, and must not fail for it.
 */
export function serverEnv(): ServerEnv {
  cached ??= parseServerEnv(process.env);
  return cached;
}
