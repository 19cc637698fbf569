import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createApiServer, outboxMailSender, SCHEMA_REGISTRY_BASE_PATH } from "@lastword/api";
import { hashApiKey } from "@lastword/api/key-auth";
import { DataPlaneClient } from "@lastword/dataplane";
import { createPrisma } from "@lastword/db";
import { Redis } from "ioredis";
import { z } from "zod";
import type { StartEnv } from "./env";
import type { LocalSecrets } from "./secrets";

export const DEMO_EMAIL = "demo@lastword.local";
export const DEMO_PASSWORD = "lastword-demo-password";
export const DEMO_TENANT = "demo";

const demoFileSchema = z.object({
  url: z.string(),
  email: z.string(),
  password: z.string(),
  apiKey: z.string(),
  tenant: z.string(),
  // The worker's Kafka listener: the demo key's id is the SASL user name, the key itself the password.
  kafka: z.object({ bootstrap: z.string(), username: z.string(), password: z.string() }),
  // The schema registry (Confluent's API): HTTP Basic with the same key's id and secret.
  schemaRegistry: z.object({ url: z.string(), username: z.string(), password: z.string() }),
});
export type DemoFile = z.infer<typeof demoFileSchema>;

interface SeedOptions {
  url: string;
  file: string;
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  authSecret: string;
  internalSecret: string;
  /** host:port of the worker's Kafka listener, as clients bootstrap with it. */
  kafkaBootstrap: string;
}

/** How `npm start` seeds: its settings, its secrets, the console's URL and the worker's bootstrap address. */
export function demoSeedOptions(
  env: StartEnv,
  options: { file: string; url: string; secrets: LocalSecrets; kafkaBootstrap: string },
): SeedOptions {
  return {
    url: options.url,
    file: options.file,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    redisPrefix: env.REDIS_PREFIX,
    authSecret: options.secrets.authSecret,
    internalSecret: options.secrets.internalSecret,
    kafkaBootstrap: options.kafkaBootstrap,
  };
}

/** The demo key from an earlier run, if it still authenticates (keys can be revoked). */
async function reusableDemo(options: SeedOptions): Promise<DemoFile | null> {
  if (!existsSync(options.file)) return null;
  // An earlier run's file may predate the `kafka` and `schemaRegistry` entries: they are derived again below.
  const parsed = demoFileSchema
    .omit({ kafka: true, schemaRegistry: true })
    .safeParse(JSON.parse(readFileSync(options.file, "utf8")));
  if (!parsed.success) return null;
  const response = await fetch(`${options.url}/api/v1/topics`, {
    headers: { authorization: `Bearer ${parsed.data.apiKey}` },
  });
  if (!response.ok) return null;
  // A key made before the registry existed lacks its scopes: a new demo key is made instead.
  const registry = await fetch(`${options.url}${SCHEMA_REGISTRY_BASE_PATH}/subjects`, {
    headers: { authorization: `Bearer ${parsed.data.apiKey}` },
  });
  if (!registry.ok) return null;
  // The key's id is the Kafka user name; only the key's hash is stored, so it is found by that.
  const prisma = createPrisma(options.databaseUrl, { maxConnections: 1 });
  try {
    const row = await prisma.apiKey.findFirst({
      where: { key: hashApiKey(parsed.data.apiKey) },
      select: { id: true },
    });
    if (!row) return null;
    return {
      ...parsed.data,
      url: options.url,
      kafka: kafkaLogin(options, row.id, parsed.data.apiKey),
      schemaRegistry: registryLogin(options, row.id, parsed.data.apiKey),
    };
  } finally {
    await prisma.$disconnect();
  }
}

function kafkaLogin(options: SeedOptions, keyId: string, secret: string): DemoFile["kafka"] {
  return { bootstrap: options.kafkaBootstrap, username: keyId, password: secret };
}

function registryLogin(options: SeedOptions, keyId: string, secret: string): DemoFile["schemaRegistry"] {
  return { url: `${options.url}${SCHEMA_REGISTRY_BASE_PATH}`, username: keyId, password: secret };
}

/** Reads `.lastword/demo.json` as `npm start` writes it (tests, scripts). */
export function parseDemoFile(text: string): DemoFile {
  return demoFileSchema.parse(JSON.parse(text));
}

/** Seeds the demo tenant (idempotent) and writes .lastword/demo.json for scripts. */
export async function seedDemo(options: SeedOptions): Promise<DemoFile> {
  const reused = await reusableDemo(options);
  const demo = reused ?? (await createDemo(options));
  mkdirSync(dirname(options.file), { recursive: true });
  writeFileSync(options.file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

async function createDemo(options: SeedOptions): Promise<DemoFile> {
  const prisma = createPrisma(options.databaseUrl, { maxConnections: 2 });
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const server = createApiServer({
      prisma,
      redis,
      redisPrefix: options.redisPrefix,
      dataPlane: new DataPlaneClient({ prisma, secret: options.internalSecret }),
      publicUrl: options.url,
      authSecret: options.authSecret,
      // provisionTenant marks the demo address verified, so the sign-up's verification mail is dropped.
      mailSender: outboxMailSender(),
    });
    const tenant = await server.provisionTenant({
      name: DEMO_TENANT,
      email: DEMO_EMAIL,
      password: DEMO_PASSWORD,
    });
    const key = await server.createApiKey({
      organizationId: tenant.organizationId,
      userId: tenant.userId,
      name: "demo key (npm start)",
    });
    return {
      url: options.url,
      email: DEMO_EMAIL,
      password: DEMO_PASSWORD,
      apiKey: key.key,
      tenant: tenant.organizationSlug,
      // createApiKey (issueApiKey) derived the key's SCRAM credentials: PLAIN and SCRAM both log in.
      kafka: kafkaLogin(options, key.id, key.key),
      schemaRegistry: registryLogin(options, key.id, key.key),
    };
  } finally {
    await prisma.$disconnect();
    redis.disconnect();
  }
}
