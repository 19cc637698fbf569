import { z } from "zod";

const schema = z.object({
  DATABASE_URL: z.string().default("postgresql://postgres@127.0.0.1:5432/lastword"),
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  REDIS_PREFIX: z.string().default("lastword"),
  PUBLIC_URL: z.string().default("http://localhost:3000"),
  // Passwords and API keys do not depend on it; only sessions, which the CLI never issues.
  BETTER_AUTH_SECRET: z.string().default("lastword-cli-has-no-sessions"),
  LASTWORD_INTERNAL_SECRET: z.string().default("lastword-cli-does-not-call-workers"),
  // The workers' lease TTL: a worker silent for longer is shown dead (as the workers count it).
  WORKER_LEASE_TTL_MS: z.coerce.number().int().min(1000).default(10_000),
});

export type CliEnv = z.infer<typeof schema>;

export function readEnv(): CliEnv {
  return schema.parse(process.env);
}
