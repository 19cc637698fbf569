import { randomBytes } from "node:crypto";
import { type ApiServer, SCOPES, type Scope } from "@lastword/api";
import type { PrismaClient } from "@lastword/db";

export class UsageError extends Error {
  override name = "UsageError";
}

export interface CommandDeps {
  prisma: PrismaClient;
  server: ApiServer;
}

export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string>;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split("=", 2) as [string, string?];
    const value = inline ?? argv[i + 1];
    if (value === undefined || (inline === undefined && value.startsWith("--")))
      throw new UsageError(`--${name} needs a value`);
    if (inline === undefined) i++;
    flags.set(name, value);
  }
  return { positional, flags };
}

function required(args: ParsedArgs, flag: string): string {
  const value = args.flags.get(flag);
  if (!value) throw new UsageError(`--${flag} is required`);
  return value;
}

function parseScopes(text: string | undefined): Scope[] | undefined {
  if (text === undefined) return undefined;
  const scopes = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw new UsageError(`unknown scopes: ${unknown.join(", ")} (known: ${SCOPES.join(", ")})`);
  return scopes as Scope[];
}

async function ownerOf(prisma: PrismaClient, organizationId: string): Promise<string> {
  const owner = await prisma.member.findFirst({
    where: { organizationId, role: "owner" },
    orderBy: { createdAt: "asc" },
  });
  if (!owner) throw new UsageError(`no tenant ${organizationId}`);
  return owner.userId;
}

/** `tenant create <name> --email <e> [--password <p>]`: the tenant and an admin API key. */
export async function tenantCreate(deps: CommandDeps, args: ParsedArgs): Promise<unknown> {
  const name = args.positional[0];
  if (!name)
    throw new UsageError("usage: lastword tenant create <name> --email <email> [--password <password>]");
  const email = required(args, "email");
  const password = args.flags.get("password") ?? randomBytes(12).toString("base64url");
  const tenant = await deps.server.provisionTenant({ name, email, password });
  const key = await deps.server.createApiKey({ ...tenant, name: "admin (cli)", scopes: ["admin"] });
  return {
    tenantId: tenant.organizationId,
    slug: tenant.organizationSlug,
    userId: tenant.userId,
    email,
    ...(args.flags.has("password") ? {} : { password }),
    apiKey: key.key,
    apiKeyId: key.id,
  };
}

/** `apikey create --tenant <id> [--scopes a,b] [--name n]`. */
export async function apiKeyCreate(deps: CommandDeps, args: ParsedArgs): Promise<unknown> {
  const organizationId = required(args, "tenant");
  const userId = await ownerOf(deps.prisma, organizationId);
  const key = await deps.server.createApiKey({
    organizationId,
    userId,
    name: args.flags.get("name") ?? "cli",
    scopes: parseScopes(args.flags.get("scopes")),
  });
  return { id: key.id, apiKey: key.key, prefix: key.prefix, scopes: key.scopes };
}

/** `topic list --tenant <id>`. */
export async function topicList(deps: CommandDeps, args: ParsedArgs): Promise<unknown> {
  const organizationId = required(args, "tenant");
  const topics = await deps.prisma.topic.findMany({ where: { organizationId }, orderBy: { name: "asc" } });
  return topics.map((t) => ({ id: t.id, name: t.name, partitions: t.partitionCount, configs: t.configs }));
}

/** `worker list`: every registered worker, live or stopped, with how many partitions it owns. */
export async function workerList(deps: CommandDeps): Promise<unknown> {
  const workers = await deps.prisma.worker.findMany({
    orderBy: { startedAt: "asc" },
    include: { _count: { select: { partitions: true } } },
  });
  return workers.map((w) => ({
    id: w.id,
    address: w.address,
    startedAt: w.startedAt.toISOString(),
    heartbeatAt: w.heartbeatAt.toISOString(),
    stoppedAt: w.stoppedAt?.toISOString() ?? null,
    partitions: w._count.partitions,
  }));
}
