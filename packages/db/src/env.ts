import { z } from "zod";

// The only place this package reads process.env: the database the migration CLI migrates, and
// the server on which tests create their own databases (never the demo one).
const schema = z.object({
  DATABASE_URL: z.url().default("postgresql://postgres@127.0.0.1:5432/lastword"),
  TEST_DATABASE_URL: z.url().default("postgresql://postgres@127.0.0.1:5432/postgres"),
});

export type DbEnv = z.infer<typeof schema>;

/**
 * `source` (process.env by default) through `envSchema`, or one readable sentence naming the first
 * bad variable: how every env reader of the repo parses. Takes a plain record, not
 * NodeJS.ProcessEnv: libraries (better-auth) augment that type with required keys.
 */
export function parseEnv<S extends z.ZodType>(
  envSchema: S,
  source: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join(".") || "environment"} is invalid: ${issue.message}`);
  }
  return parsed.data;
}

export function readDbEnv(source?: Record<string, string | undefined>): DbEnv {
  return parseEnv(schema, source);
}
