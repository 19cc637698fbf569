import type { CommandDeps } from "./commands";
import { type CliEnv, readEnv } from "./env";

export interface CliIo {
  out?: (line: string) => void;
  err?: (line: string) => void;
  /** Defaults to the process environment (src/env.ts). */
  env?: CliEnv;
}

const USAGE = `usage: lastword <command>
  tenant create <name> --email <email> [--password <password>]   prints the tenant and an admin API key
  tenant show --tenant <id>                                     the tenant's quotas (connections, rates, inflated bytes, …)
  apikey create --tenant <id> [--scopes topics:read,records:write,…] [--name <name>]
  topic list --tenant <id>
  worker list
Environment: DATABASE_URL, REDIS_URL, REDIS_PREFIX (defaults: local services), WORKER_LEASE_TTL_MS
(10000: a worker without a heartbeat for longer is listed dead). Output is JSON.`;

const COMMANDS = {
  "tenant create": "tenantCreate",
  "tenant show": "tenantShow",
  "apikey create": "apiKeyCreate",
  "topic list": "topicList",
  "worker list": "workerList",
} as const;

type CommandName = (typeof COMMANDS)[keyof typeof COMMANDS];

// The service modules (better-auth, Prisma) load only once a command is known, so usage is instant.
async function runCommand(name: CommandName, env: CliEnv, args: readonly string[]): Promise<unknown> {
  const [commands, { createApiServer }, { DataPlaneClient }, { createPrisma }, { Redis }] = await Promise.all(
    [
      import("./commands"),
      import("@lastword/api"),
      import("@lastword/dataplane"),
      import("@lastword/db"),
      import("ioredis"),
    ],
  );
  const prisma = createPrisma(env.DATABASE_URL, { maxConnections: 2 });
  const redis = new Redis(env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    const server = createApiServer({
      prisma,
      redis,
      dataPlane: new DataPlaneClient({ prisma, secret: env.LASTWORD_INTERNAL_SECRET }),
      publicUrl: env.PUBLIC_URL,
      authSecret: env.BETTER_AUTH_SECRET,
      redisPrefix: env.REDIS_PREFIX,
    });
    const deps: CommandDeps = { prisma, server };
    const parsed = commands.parseArgs(args);
    if (name === "workerList") return await commands.workerList(deps, parsed, env.WORKER_LEASE_TTL_MS);
    return await commands[name](deps, parsed);
  } finally {
    redis.disconnect();
    await prisma.$disconnect();
  }
}

function isExpected(error: unknown): error is Error {
  return error instanceof Error && (error.name === "UsageError" || error.name === "AppError");
}

/** Runs one command, prints its JSON result, and returns the process exit code. */
export async function main(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const out = io.out ?? console.log;
  const err = io.err ?? console.error;
  const name = COMMANDS[`${argv[0]} ${argv[1]}` as keyof typeof COMMANDS];
  if (!name) {
    const help = argv.length === 0 || argv[0] === "help" || argv[0] === "--help";
    (help ? out : err)(USAGE);
    return help ? 0 : 2;
  }
  try {
    const result = await runCommand(name, io.env ?? readEnv(), argv.slice(2));
    out(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    if (!isExpected(error)) throw error;
    err(`lastword: ${error.message}`);
    return 2;
  }
}
