import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createApiServer, outboxMailSender } from "@lastword/api";
import { DataPlaneClient } from "@lastword/dataplane";
import { createPrisma } from "@lastword/db";
import { Redis } from "ioredis";
import { z } from "zod";

export const DEMO_EMAIL = "demo@lastword.local";
export const DEMO_PASSWORD = "lastword-demo-password";
export const DEMO_TENANT = "demo";

const demoFileSchema = z.object({
  url: z.string(),
  email: z.string(),
  password: z.string(),
  apiKey: z.string(),
  tenant: z.string(),
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
}

/** The demo key from an earlier run, if it still authenticates (keys can be revoked). */
async function reusableDemo(options: SeedOptions): Promise<DemoFile | null> {
  if (!existsSync(options.file)) return null;
  const parsed = demoFileSchema.safeParse(JSON.parse(readFileSync(options.file, "utf8")));
  if (!parsed.success) return null;
  const response = await fetch(`${options.url}/api/v1/topics`, {
    headers: { authorization: `Bearer ${parsed.data.apiKey}` },
  });
  return response.ok ? { ...parsed.data, url: options.url } : null;
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
    };
  } finally {
    await prisma.$disconnect();
    redis.disconnect();
  }
}
