import { z } from "zod";

// The only place this package reads process.env: the database the migration CLI migrates, and
// the server on which tests create their own databases (never the demo one).
const schema = z.object({
  DATABASE_URL: z.url().default("postgresql://postgres@127.0.0.1:5432/lastword"),
  TEST_DATABASE_URL: z.url().default("postgresql://postgres@127.0.0.1:5432/postgres"),
});

export type DbEnv = z.infer<typeof schema>;

/** Throws one readable sentence on a bad value. */
export function readDbEnv(source: Record<string, string | undefined> = process.env): DbEnv {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join(".") || "environment"} is invalid: ${issue.message}`);
  }
  return parsed.data;
}
