import { z } from "zod";

const schema = z.object({
  DATABASE_URL: z.string().url().default("postgresql://postgres@127.0.0.1:5432/lastword"),
  REDIS_URL: z.string().url().default("redis://127.0.0.1:6379"),
  REDIS_PREFIX: z.string().min(1).default("lastword"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  PUBLIC_URL: z.string().url().optional(),
  LASTWORD_DATA_DIR: z.string().optional(),
  LASTWORD_SKIP_BUILD: z.enum(["0", "1"]).default("0"),
});

export type StartEnv = z.infer<typeof schema>;

export function readStartEnv(): StartEnv {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join(".")} is invalid: ${issue.message}`);
  }
  return parsed.data;
}

/** What the children inherit: the parent's environment plus the resolved settings. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...extra };
}
