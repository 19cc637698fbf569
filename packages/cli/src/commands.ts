import { randomBytes } from "node:crypto";
import { type ApiServer, SCOPES, type Scope } from "@lastword/api";
import { DEFAULT_QUOTA, quotaView } from "@lastword/api/tenant-quota";
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

/**
 * `tenant show --tenant <id>`: the tenant and every limit it is held to (its Quota row, or the
 * service defaults where it has none), as the console's tenant settings show them.
 */
export async function tenantShow(deps: CommandDeps, args: ParsedArgs): Promise<unknown> {
  const organizationId = required(args, "tenant");
  const organization = await deps.prisma.organization.findUnique({
    where: { id: organizationId },
    include: { quota: true },
  });
  if (!organization) throw new UsageError(`no tenant ${organizationId}`);
  return {
    tenantId: organization.id,
    name: organization.name,
    slug: organization.slug,
    quotaSource: organization.quota ? "tenant" : "defaults",
    quota: quotaView(organization.quota ?? { ...DEFAULT_QUOTA }),
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

/**
 * `worker list`: every registered worker with how many partitions it owns and whether it is alive.
 * A SIGKILLed worker never sets `stoppedAt`, so liveness comes from the heartbeat: a worker whose
 * last heartbeat is older than one lease TTL (`WORKER_LEASE_TTL_MS`, the workers' own setting) is
 * dead, as the ownership loop counts it. Ages are measured on the database clock, which wrote them.
 */
export async function workerList(
  deps: CommandDeps,
  _args?: ParsedArgs,
  leaseTtlMs = 10_000,
): Promise<unknown> {
  const [workers, [clock]] = await Promise.all([
    deps.prisma.worker.findMany({
      orderBy: { startedAt: "asc" },
      include: { _count: { select: { partitions: true } } },
    }),
    deps.prisma.$queryRaw<{ now: Date }[]>`SELECT now() AS now`,
  ]);
  const nowMs = clock!.now.getTime();
  return workers.map((w) => {
    const silentMs = Math.max(0, nowMs - w.heartbeatAt.getTime());
    return {
      id: w.id,
      address: w.address,
      status: workerStatus(w.stoppedAt, silentMs, leaseTtlMs),
      startedAt: w.startedAt.toISOString(),
      heartbeatAt: w.heartbeatAt.toISOString(),
      heartbeatAgeMs: silentMs,
      stoppedAt: w.stoppedAt?.toISOString() ?? null,
      partitions: w._count.partitions,
    };
  });
}

/** `stopped` (shut down cleanly), `alive` (heartbeat within one lease TTL) or `dead (no heartbeat for N s)`. */
export function workerStatus(stoppedAt: Date | null, silentMs: number, leaseTtlMs: number): string {
  if (stoppedAt !== null) return "stopped";
  if (silentMs <= leaseTtlMs) return "alive";
  return `dead (no heartbeat for ${Math.floor(silentMs / 1000)} s)`;
}
